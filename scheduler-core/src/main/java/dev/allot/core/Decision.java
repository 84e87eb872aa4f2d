package dev.allot.core;

import java.util.List;

/**
 * What {@link Scheduler#schedule(long)} decided, in the order it must be carried out (a Preempt
 * comes before the Place that uses the freed GPUs). Every decision carries the reason a person
 * reads, built from the very values the decision was taken on.
 */
public sealed interface Decision {

    /** The job (or for {@link NodeDrained} the node) the decision is about. */
    String subject();

    /** Human-readable reason. */
    String reason();

    /** Start the gang: one replica per listed node on the listed GPU indices. */
    record Place(String jobId, String account, String cluster, List<ReplicaPlacement> replicas, ChargeMode chargeMode,
            long protectedUntilMillis, String reason) implements Decision {
        public Place {
            replicas = List.copyOf(replicas);
        }

        @Override
        public String subject() {
            return jobId;
        }
    }

    /**
     * Stop a running job to make room for {@code preemptorJobId}. The victim goes back to
     * waiting: resumable jobs keep their submit time, non-resumable jobs restart and queue from
     * now ({@code keptSubmitTime} false).
     *
     * @param victimRatio ratio of the victim's side of the tree where the two accounts diverge
     *     (NaN for unallocated victims, which any allocated job may displace)
     * @param preemptorRatio ratio of the preemptor's side at the same level
     * @param released the placement the victim held, to be stopped
     * @param lostGpuSeconds work the victim loses: GPU-seconds since its last checkpoint (resumable)
     *     or since its placement (not resumable)
     */
    record Preempt(String jobId, String account, String preemptorJobId, String preemptorAccount, ChargeMode victimMode,
            double victimRatio, double preemptorRatio, boolean keptSubmitTime, String reason,
            List<ReplicaPlacement> released, double lostGpuSeconds) implements Decision {
        public Preempt {
            released = List.copyOf(released);
        }

        @Override
        public String subject() {
            return jobId;
        }
    }

    /**
     * A running job lost its node (or a replica's node): stop what remains, the job waits again.
     * {@code released} and {@code lostGpuSeconds} as for {@link Preempt}.
     */
    record Requeue(String jobId, String account, String nodeId, String reason, List<ReplicaPlacement> released,
            double lostGpuSeconds) implements Decision {
        public Requeue {
            released = List.copyOf(released);
        }

        @Override
        public String subject() {
            return jobId;
        }
    }

    /** The job is refused (contract out of range, unknown account, no such cluster shape...). */
    record Reject(String jobId, String account, String reason) implements Decision {
        @Override
        public String subject() {
            return jobId;
        }
    }

    /**
     * Stop a job on a draining node now that its contract allows; it waits again.
     * {@code released} and {@code lostGpuSeconds} as for {@link Preempt}.
     */
    record ReleaseForDrain(String jobId, String account, String nodeId, boolean keptSubmitTime, String reason,
            List<ReplicaPlacement> released, double lostGpuSeconds) implements Decision {
        public ReleaseForDrain {
            released = List.copyOf(released);
        }

        @Override
        public String subject() {
            return jobId;
        }
    }

    /** A draining node is empty. Reported once per drain. */
    record NodeDrained(String nodeId, String cluster, String reason) implements Decision {
        @Override
        public String subject() {
            return nodeId;
        }
    }

    /**
     * Nodes are held for a blocked top-ranked job: no new protected work lands there unless it
     * ends (or may be preempted) before {@code dueAtMillis}. Emitted when created or changed.
     */
    record Reserve(String jobId, String cluster, List<String> nodeIds, long dueAtMillis, String reason)
            implements Decision {
        public Reserve {
            nodeIds = List.copyOf(nodeIds);
        }

        @Override
        public String subject() {
            return jobId;
        }
    }
}
