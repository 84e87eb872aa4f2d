package dev.allot.simulator.scenario;

import dev.allot.core.metrics.JobClass;

/** A job of a scenario with its contract: what the simulator submits to the core. */
public record SimJob(String jobId, String team, long submitSeconds, int replicas, int gpusPerReplica,
        long durationSeconds, long minRuntimeSeconds, boolean resumable, boolean debug) {

    public int gpus() {
        return replicas * gpusPerReplica;
    }

    public JobClass jobClass() {
        return JobClass.of(gpus(), debug);
    }

    public boolean allocated() {
        return minRuntimeSeconds > 0;
    }
}
