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
 */
public record Scenario(List<SimJob> jobs, BudgetFile budgets, List<String> teams, int nodes, int gpusPerNode,
        long periodSeconds, double offeredLoad, long seed, ContractRule rule, long lookbackSeconds,
        long maxMinRuntimeSeconds, int traceJobs, int debugJobs, long warmupSeconds) {

    public Scenario {
        jobs = List.copyOf(jobs);
        teams = List.copyOf(teams);
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
                lookbackSeconds, maxMinRuntimeSeconds, traceJobs, debugJobs, warmupSeconds);
    }
}
