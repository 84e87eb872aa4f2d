package dev.allot.budget.tree;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * GPU capacity per cluster: the latest NodeRegistered of every node (its cluster and GPU count),
 * summed per cluster. A node that re-registers elsewhere moves its GPUs; lost or drained nodes still
 * count, as entitlement is about the cluster's size, not its health at this second.
 */
public final class ClusterCapacity {

    private record Node(String cluster, int gpus) {
    }

    private final Map<String, Node> nodes = new ConcurrentHashMap<>();

    public void nodeRegistered(String nodeId, String cluster, int gpuCount) {
        nodes.put(nodeId, new Node(cluster, gpuCount));
    }

    /** GPUs per cluster, sorted by cluster name. */
    public Map<String, Integer> gpusPerCluster() {
        Map<String, Integer> capacity = new TreeMap<>();
        nodes.values().forEach(node -> capacity.merge(node.cluster(), node.gpus(), Integer::sum));
        return capacity;
    }

    /** Whether any node of the cluster has registered. */
    public boolean knows(String cluster) {
        return nodes.values().stream().anyMatch(node -> node.cluster().equals(cluster));
    }

    public int gpus(String cluster) {
        return gpusPerCluster().getOrDefault(cluster, 0);
    }
}
