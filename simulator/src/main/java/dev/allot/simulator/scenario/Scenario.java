package dev.allot.simulator.scenario;

import java.util.List;
import java.util.Map;

/**
 * Everything a simulation run needs: the jobs with their contracts (sorted by submit time, then
 * id), the budget tree, the cluster shape and the period.
 *
 * @param periodSeconds the measured period, which starts after {@code warmupSeconds} of simulated
 *     time whose figures are not counted (0 by default)
 * @param offeredLoad offered GPU-seconds in the measured period / (cluster GPUs x period), where a job
 *     offers GPUs x the part of [submit, submit + duration) inside the measured period
 * @param checkpointOnNotice the share of resumable jobs that write a checkpoint within the grace period
 *     when they are told to stop (preempted, or released for a drain) and so lose nothing; which jobs
 *     do is drawn per job, seeded by (seed, job id) ({@link #checkpointsOnNotice})
 */
public record Scenario(List<SimJob> jobs, BudgetFile budgets, List<String> teams, int nodes, int gpusPerNode,
        long periodSeconds, double offeredLoad, long seed, ContractRule rule, long lookbackSeconds,
        long maxMinRuntimeSeconds, int traceJobs, int debugJobs, long warmupSeconds, double checkpointOnNotice) {

    public Scenario {
        jobs = List.copyOf(jobs);
        teams = List.copyOf(teams);
        if (!(checkpointOnNotice >= 0 && checkpointOnNotice <= 1)) {
            throw new IllegalArgumentException("--checkpoint-on-notice must be in 0..1, not " + checkpointOnNotice);
        }
    }

    /**
     * Whether this job checkpoints when told to stop: only a resumable job can, and it does with
     * probability {@code checkpointOnNotice}, from its own generator (seed, job id), so the answer does
     * not depend on the order jobs are read in nor on any other random rule, and a fraction of 0 draws
     * nothing.
     */
    public boolean checkpointsOnNotice(SimJob job) {
        return job.resumable() && checkpointOnNotice > 0
                && Seeds.random(seed, "checkpoint-on-notice", job.jobId()).nextDouble() < checkpointOnNotice;
    }

    public int clusterGpus() {
        return nodes * gpusPerNode;
    }

    public double days() {
        return periodSeconds / 86400.0;
    }

    /** Simulated time: warm-up plus measured period. */
    public long spanSeconds() {
        return warmupSeconds + periodSeconds;
    }

    public Map<String, Double> fractions() {
        return budgets.leafFractions();
    }

    /** The same scenario with trace contracts re-drawn by another rule (debug jobs keep theirs). */
    public Scenario withJobs(List<SimJob> newJobs, ContractRule newRule) {
        return new Scenario(newJobs, budgets, teams, nodes, gpusPerNode, periodSeconds, offeredLoad, seed, newRule,
                lookbackSeconds, maxMinRuntimeSeconds, traceJobs, debugJobs, warmupSeconds, checkpointOnNotice);
    }

    /** The same scenario with another budget tree (teams missing from it get the floor share, as when built). */
    public Scenario withBudgets(BudgetFile tree) {
        return new Scenario(jobs, tree.withTeams(teams), teams, nodes, gpusPerNode, periodSeconds, offeredLoad, seed,
                rule, lookbackSeconds, maxMinRuntimeSeconds, traceJobs, debugJobs, warmupSeconds, checkpointOnNotice);
    }

    /** The same scenario with another share of resumable jobs checkpointing on notice. */
    public Scenario withCheckpointOnNotice(double fraction) {
        return new Scenario(jobs, budgets, teams, nodes, gpusPerNode, periodSeconds, offeredLoad, seed, rule,
                lookbackSeconds, maxMinRuntimeSeconds, traceJobs, debugJobs, warmupSeconds, fraction);
    }
}
