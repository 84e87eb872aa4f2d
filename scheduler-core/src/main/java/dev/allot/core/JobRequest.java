package dev.allot.core;

import java.util.Objects;

/**
 * A job as submitted: a gang of {@code replicas} x {@code gpusPerReplica} GPUs, each replica on
 * its own node of {@code cluster}, charged to the budget {@code account}.
 *
 * @param jobId unique id; also the last tie-break of the ordering
 * @param account the budget (normally a leaf of the tree) the job is charged to
 * @param cluster the cluster the job must run on
 * @param replicas number of replicas (nodes), at least 1
 * @param gpusPerReplica GPUs per replica, at least 1
 * @param minRuntimeMillis the contract's minimum runtime, 0 to the configured maximum (8 h by default)
 * @param resumable whether the job checkpoints and can resume after preemption
 * @param priority the job's own priority inside its team (higher first); never crosses teams
 * @param submitTimeMillis epoch millis of submission; kept across requeues of resumable jobs
 * @param expectedDurationMillis expected run time if known, or {@code -1}; used only to decide
 *     whether a job may backfill nodes reserved for a large job
 */
public record JobRequest(
        String jobId,
        String account,
        String cluster,
        int replicas,
        int gpusPerReplica,
        long minRuntimeMillis,
        boolean resumable,
        int priority,
        long submitTimeMillis,
        long expectedDurationMillis) {

    public JobRequest {
        Objects.requireNonNull(jobId, "jobId");
        Objects.requireNonNull(account, "account");
        Objects.requireNonNull(cluster, "cluster");
    }

    /** A job with priority 0 and no expected duration. */
    public static JobRequest of(String jobId, String account, String cluster, int replicas, int gpusPerReplica,
            long minRuntimeMillis, boolean resumable, long submitTimeMillis) {
        return new JobRequest(jobId, account, cluster, replicas, gpusPerReplica, minRuntimeMillis, resumable, 0,
                submitTimeMillis, -1);
    }

    /** Total GPUs of the gang. */
    public int gpus() {
        return replicas * gpusPerReplica;
    }

    public JobRequest withPriority(int newPriority) {
        return new JobRequest(jobId, account, cluster, replicas, gpusPerReplica, minRuntimeMillis, resumable,
                newPriority, submitTimeMillis, expectedDurationMillis);
    }

    public JobRequest withExpectedDuration(long millis) {
        return new JobRequest(jobId, account, cluster, replicas, gpusPerReplica, minRuntimeMillis, resumable,
                priority, submitTimeMillis, millis);
    }
}
