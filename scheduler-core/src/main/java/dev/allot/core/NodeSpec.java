package dev.allot.core;

import java.util.Objects;

/**
 * A node as registered by its agent. Node ids are unique across clusters.
 *
 * @param cluster the cluster the node belongs to
 * @param nodeId unique node id
 * @param gpus number of GPUs (nodes of one cluster may differ); GPU indices are 0..gpus-1
 */
public record NodeSpec(String cluster, String nodeId, int gpus) {
    public NodeSpec {
        Objects.requireNonNull(cluster, "cluster");
        Objects.requireNonNull(nodeId, "nodeId");
        if (gpus <= 0) {
            throw new IllegalArgumentException("a node needs at least one GPU: " + nodeId);
        }
    }
}
