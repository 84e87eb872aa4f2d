package dev.allot.simulator.policy;

import dev.allot.core.JobView;
import dev.allot.core.policy.PolicyContext;
import java.util.Map;
import java.util.TreeMap;

/**
 * The old way (as Ai2 ran before budgets): every job is HIGH priority, one FIFO queue across all
 * teams (by submit time, then id), nothing is ever preempted, no nodes are reserved, and each team
 * may hold at most its concurrent GPU limit; a team holding nothing may always start one job even
 * if it is larger than its limit. Jobs that do not fit are skipped (greedy backfill in FIFO order).
 */
public final class PriorityPolicy implements TimeIndependent {
    private final Map<String, Integer> limits;

    /** @param limits concurrent GPU limit per team (teams not listed: unlimited) */
    public PriorityPolicy(Map<String, Integer> limits) {
        this.limits = new TreeMap<>(limits);
    }

    /** Limit = max(one node, ceil(factor x entitlement)) per team. */
    public static PriorityPolicy fromFractions(Map<String, Double> fractions, int capacityGpus, int gpusPerNode,
            double factor) {
        Map<String, Integer> l = new TreeMap<>();
        fractions.forEach((team, f) -> l.put(team,
                Math.max(gpusPerNode, (int) Math.ceil(factor * f * capacityGpus - 1e-9))));
        return new PriorityPolicy(l);
    }

    public Map<String, Integer> limits() {
        return limits;
    }

    @Override
    public String name() {
        return "priority";
    }

    @Override
    public boolean limitsAdmission() {
        return true;
    }

    @Override
    public boolean admits(JobView job, PolicyContext ctx) {
        Integer limit = limits.get(job.account());
        if (limit == null) {
            return true;
        }
        int running = ctx.runningGpus(job.account());
        return running == 0 || running + job.gpus() <= limit;
    }
}
