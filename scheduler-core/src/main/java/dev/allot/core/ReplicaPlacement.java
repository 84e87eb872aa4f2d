package dev.allot.core;

import java.util.List;

/**
 * Where one replica of a gang runs: a node (with the epoch that fences stale work) and the GPU
 * indices it holds there.
 */
public record ReplicaPlacement(String nodeId, long nodeEpoch, List<Integer> gpuIndices) {
    public ReplicaPlacement {
        gpuIndices = List.copyOf(gpuIndices);
    }
}
