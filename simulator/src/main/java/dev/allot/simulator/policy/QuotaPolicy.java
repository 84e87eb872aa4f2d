package dev.allot.simulator.policy;

import dev.allot.core.JobView;
import dev.allot.core.policy.PolicyContext;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * Fixed per-team GPU monopolies: each team may hold at most its quota (its fraction of the
 * cluster, rounded to whole GPUs, at least 1) and nobody else may use it, so a team's share
 * stays idle while the team is idle. A job larger than its team's quota may run only while the
 * team holds nothing. FIFO inside the quota, no preemption, no reservations.
 */
public final class QuotaPolicy implements TimeIndependent {
    /** By team; hashed, as {@link #admits} asks once per walked job. */
    private final HashMap<String, Integer> quotas;

    public QuotaPolicy(Map<String, Integer> quotas) {
        this.quotas = new HashMap<>(quotas);
    }

    public static QuotaPolicy fromFractions(Map<String, Double> fractions, int capacityGpus) {
        Map<String, Integer> q = new TreeMap<>();
        fractions.forEach((team, f) -> q.put(team, Math.max(1, (int) Math.floor(f * capacityGpus + 1e-9))));
        return new QuotaPolicy(q);
    }

    /** The quotas by team name (a copy). */
    public Map<String, Integer> quotas() {
        return new TreeMap<>(quotas);
    }

    @Override
    public String name() {
        return "quota";
    }

    @Override
    public boolean limitsAdmission() {
        return true;
    }

    @Override
    public boolean admits(JobView job, PolicyContext ctx) {
        int quota = quotas.getOrDefault(job.account(), 0);
        int running = ctx.runningGpus(job.account());
        if (running + job.gpus() <= quota) {
            return true;
        }
        return running == 0 && job.gpus() > quota;
    }
}
