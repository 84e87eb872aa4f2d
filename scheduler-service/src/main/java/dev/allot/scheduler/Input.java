package dev.allot.scheduler;

import java.util.List;
import java.util.Map;

/**
 * A fact from the log, mapped to the scheduler's domain at the edge ({@link RecordMapper}): what the
 * {@link Projection} applies. {@code at} is the loop's clock when the input was applied. A
 * {@link Heartbeat} is applied like any other input; when it brings a lost node back, it stands for
 * a {@link RegisterNode}.
 */
public sealed interface Input {

    long at();

    /**
     * JobSubmitted, with everything a StartJob (command, env) and a StopJob (the job's checkpoint grace,
     * null for the default) need later.
     */
    record Submit(long at, String jobId, String budget, String submitter, String cluster, int replicas,
            int gpusPerReplica, long minRuntimeSeconds, boolean resumable, int priority, List<String> command,
            Map<String, String> env, Long expectedDurationSeconds, long submittedAt, Integer checkpointGraceSeconds)
            implements Input {

        /** A submission that declares no checkpoint grace. */
        public Submit(long at, String jobId, String budget, String submitter, String cluster, int replicas,
                int gpusPerReplica, long minRuntimeSeconds, boolean resumable, int priority, List<String> command,
                Map<String, String> env, Long expectedDurationSeconds, long submittedAt) {
            this(at, jobId, budget, submitter, cluster, replicas, gpusPerReplica, minRuntimeSeconds, resumable,
                    priority, command, env, expectedDurationSeconds, submittedAt, null);
        }
    }

    record Cancel(long at, String jobId, String requestedBy, String reason) implements Input {
    }

    /** {@code createdAt}: when the account was first defined, as its record says (owed from then on). */
    record DefineBudget(long at, String path, String parent, double share, long createdAt) implements Input {
        DefineBudget(long at, String path, String parent, double share) {
            this(at, path, parent, share, at);
        }
    }

    record RemoveBudget(long at, String path) implements Input {
    }

    /** NodeRegistered (or a lost node heard from again): agentEpoch is what commands must carry. */
    record RegisterNode(long at, String nodeId, int gpus, long agentEpoch) implements Input {
    }

    /** Decided by the edge's tick: the node missed its heartbeats. */
    record NodeLost(long at, String nodeId) implements Input {
    }

    /** Decided by the edge's tick: the node has been silent a while, not yet long enough to be lost. */
    record NodeUnreachable(long at, String nodeId) implements Input {
    }

    /** NodeHeartbeat: the node is alive and runs these jobs (by its agent's count). */
    record Heartbeat(long at, String nodeId, long epoch, List<String> runningJobs) implements Input {
        public Heartbeat {
            runningJobs = List.copyOf(runningJobs);
        }
    }

    record Drain(long at, String nodeId, String requestedBy) implements Input {
    }

    record Undrain(long at, String nodeId) implements Input {
    }

    record Started(long at, String jobId, String nodeId) implements Input {
    }

    record Checkpointed(long at, String jobId, String nodeId) implements Input {
    }

    record Exited(long at, String jobId, String nodeId, int replicaIndex, int exitCode, boolean stopped)
            implements Input {
    }

    /** The accounting-service's rolling window usage of one account (BudgetUsage). */
    record Usage(long at, String account, double chargedGpuSeconds, double unallocatedGpuSeconds)
            implements Input {
    }
}
