package dev.allot.core;

import java.util.List;

/**
 * Read-only view of a job inside the core. Instances are live views (not snapshots): read them
 * while handling a call, do not keep them across events.
 */
public interface JobView {
    JobRequest request();

    default String jobId() {
        return request().jobId();
    }

    default String account() {
        return request().account();
    }

    default String cluster() {
        return request().cluster();
    }

    default int gpus() {
        return request().gpus();
    }

    /** ALLOCATED when the minimum runtime is &gt; 0, else UNALLOCATED. */
    ChargeMode chargeMode();

    JobState state();

    /**
     * The submit time used for ordering: the request's submit time, kept across requeues of
     * resumable jobs; a preempted non-resumable job restarts from scratch and queues from the
     * time it was preempted.
     */
    long queuedSinceMillis();

    /** Epoch millis of the current placement, or -1 when not running. */
    long placedAtMillis();

    /** placedAt + minRuntime for allocated jobs; placedAt for unallocated jobs; -1 when not running. */
    long protectedUntilMillis();

    /** Last checkpoint (or placement, whichever is later) of the current run, -1 when not running. */
    long lastCheckpointMillis();

    /** The current placement (empty when not running). */
    List<ReplicaPlacement> placement();

    /** How many times this job was preempted, released for drain or requeued after node loss. */
    int requeues();

    /** Whether the current run was started in the debug lane (false when not running). */
    default boolean inDebugLane() {
        return false;
    }
}
