package dev.allot.core;

import java.util.List;

/**
 * A job as it stood in an earlier process, rebuilt from the log, for {@link Scheduler#restore}:
 * waiting (empty {@code placement}) or running on the given nodes and GPU indices.
 *
 * @param request the job as submitted
 * @param queuedSinceMillis the submit time it is ordered by (kept or reset by earlier requeues)
 * @param requeues how many times it was preempted, released for drain or requeued after node loss
 * @param placement where its replicas run, one per node, with their GPU indices (the epochs are
 *     ignored: a restored placement holds the node's current epoch); empty for a waiting job
 * @param placedAtMillis when the current run was placed (its protected window counts from here);
 *     ignored for a waiting job
 * @param lastCheckpointMillis the current run's last checkpoint, or -1 for none since placement
 * @param debugLane whether the run was started as a debug-lane job
 */
public record RestoredJob(JobRequest request, long queuedSinceMillis, int requeues, List<ReplicaPlacement> placement,
        long placedAtMillis, long lastCheckpointMillis, boolean debugLane) {

    public RestoredJob {
        placement = List.copyOf(placement);
    }

    public static RestoredJob waiting(JobRequest request, long queuedSinceMillis, int requeues) {
        return new RestoredJob(request, queuedSinceMillis, requeues, List.of(), -1, -1, false);
    }

    public static RestoredJob running(JobRequest request, long queuedSinceMillis, int requeues,
            List<ReplicaPlacement> placement, long placedAtMillis, long lastCheckpointMillis, boolean debugLane) {
        return new RestoredJob(request, queuedSinceMillis, requeues, placement, placedAtMillis, lastCheckpointMillis,
                debugLane);
    }

    public boolean running() {
        return !placement.isEmpty();
    }
}
