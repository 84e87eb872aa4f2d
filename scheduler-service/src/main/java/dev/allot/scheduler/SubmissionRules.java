package dev.allot.scheduler;

import dev.allot.core.policy.BudgetView;

/**
 * The submission rules the edge checks at once (README, "Validation"), first failure wins. What the
 * core would reject itself arrives later as its own {@code Reject} decision.
 */
final class SubmissionRules {

    /** Why a submission is refused, and the field to blame. */
    record Rejection(String reason, String field) {
    }

    /** The registered nodes of the cluster (lost and draining ones count: they may come back). */
    record ClusterShape(int nodes, int largestNodeGpus, long totalGpus) {
    }

    private final String cluster;
    private final long maxMinRuntimeSeconds;

    SubmissionRules(String cluster, long maxMinRuntimeMillis) {
        this.cluster = cluster;
        this.maxMinRuntimeSeconds = maxMinRuntimeMillis / 1000;
    }

    /** The first rule {@code s} breaks, or null when it may be submitted to the core. */
    Rejection check(Input.Submit s, BudgetView budgets, ClusterShape shape) {
        if (s.jobId() == null || s.jobId().isBlank()) {
            return new Rejection("job id is empty", "jobId");
        }
        if (s.budget() == null || !budgets.exists(s.budget())) {
            return new Rejection("unknown account '" + s.budget() + "': not in the budget tree", "budget");
        }
        if (!budgets.children(s.budget()).isEmpty()) {
            return new Rejection("account '" + s.budget() + "' is not a leaf of the budget tree (children: "
                    + String.join(", ", budgets.children(s.budget())) + ")", "budget");
        }
        if (s.replicas() < 1) {
            return new Rejection("replicas must be at least 1, got " + s.replicas(), "replicas");
        }
        if (s.gpusPerReplica() < 1) {
            return new Rejection("gpusPerReplica must be at least 1, got " + s.gpusPerReplica(), "gpusPerReplica");
        }
        if (s.minRuntimeSeconds() < 0) {
            return new Rejection("minRuntimeSeconds " + s.minRuntimeSeconds() + " is negative", "minRuntimeSeconds");
        }
        if (s.minRuntimeSeconds() > maxMinRuntimeSeconds) {
            return new Rejection("minRuntimeSeconds " + s.minRuntimeSeconds() + " exceeds the maximum of "
                    + maxMinRuntimeSeconds + " s (" + (maxMinRuntimeSeconds / 3600.0) + " h)", "minRuntimeSeconds");
        }
        if (s.command() == null || s.command().isEmpty() || s.command().get(0).isBlank()) {
            return new Rejection("command is empty", "command");
        }
        if (s.gpusPerReplica() > shape.largestNodeGpus()) {
            return new Rejection("gpusPerReplica " + s.gpusPerReplica() + " exceeds the largest node of cluster '"
                    + cluster + "' (" + shape.largestNodeGpus() + " GPUs)", "gpusPerReplica");
        }
        if (s.replicas() > shape.nodes()) {
            return new Rejection("replicas " + s.replicas() + " exceeds the " + shape.nodes() + " nodes of cluster '"
                    + cluster + "' (one replica per node)", "replicas");
        }
        long asked = (long) s.replicas() * s.gpusPerReplica();
        if (asked > shape.totalGpus()) {
            return new Rejection("the job asks for " + asked + " GPUs, cluster '" + cluster + "' has "
                    + shape.totalGpus(), "replicas");
        }
        return null;
    }
}
