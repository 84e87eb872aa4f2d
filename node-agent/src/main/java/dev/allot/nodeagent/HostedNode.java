package dev.allot.nodeagent;

import dev.allot.nodeagent.gpu.GpuBackend;

/** A node this agent process executes for, with the epoch it registered under in this run. */
public record HostedNode(String nodeId, String cluster, GpuBackend backend, long epoch) {

    public int gpuCount() {
        return backend.gpus().size();
    }
}
