package dev.allot.simulator.policy;

import dev.allot.core.explain.AccountRatio;
import dev.allot.core.policy.AccountRanking;
import dev.allot.core.policy.BudgetView;
import dev.allot.core.policy.PolicyContext;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Slurm-style fair share without a contract: each account's usage is the GPU-seconds its jobs
 * held, decayed with a half-life (7 days by default); accounts are ranked as Fair Tree does, but on
 * decayed usage / fraction instead of the windowed ratio (siblings by that value, lower first; ties:
 * larger fraction, then name). Within an account: priority, then submit time. No minimum runtime
 * protects anything and nothing is preempted (Slurm's multifactor fair share with backfill); the
 * top blocked job gets a reservation (Slurm's backfill reservation).
 *
 * <p>Usage is integrated at each pass from the GPUs running at that moment over the time since the
 * previous pass. The policy is stateful, deterministic, and one instance serves one scheduler.
 */
public final class FairshareDecayPolicy implements NonPreempting {
    private final double halfLifeMillis;
    private final Map<String, Double> usage = new HashMap<>();
    private long lastMillis = Long.MIN_VALUE;
    private Map<String, Integer> lastRunning = new HashMap<>();

    public FairshareDecayPolicy(long halfLifeMillis) {
        this.halfLifeMillis = halfLifeMillis;
    }

    @Override
    public String name() {
        return "fairshare-decay";
    }

    /** Decayed GPU-seconds of an account (own jobs only), as of the last pass. */
    public double decayedUsage(String account) {
        return usage.getOrDefault(account, 0.0);
    }

    @Override
    public AccountRanking rankAccounts(PolicyContext ctx) {
        BudgetView tree = ctx.budgets();
        long now = ctx.nowMillis();
        List<String> all = new ArrayList<>();
        collect(tree, tree.roots(), all);
        if (lastMillis != Long.MIN_VALUE && now > lastMillis) {
            double dt = now - lastMillis;
            double decay = Math.pow(0.5, dt / halfLifeMillis);
            for (String a : all) {
                double u = usage.getOrDefault(a, 0.0) * decay;
                // GPUs held since the last pass, integrated with the same decay (exact for constant use)
                int gpus = lastRunning.getOrDefault(a, 0);
                if (gpus > 0) {
                    double lambda = Math.log(2) / halfLifeMillis;
                    u += gpus * (1 - decay) / lambda / 1000.0;
                }
                usage.put(a, u);
            }
        }
        lastMillis = Math.max(lastMillis, now);
        Map<String, Integer> running = new HashMap<>();
        for (String a : all) {
            int g = ctx.runningGpus(a);
            if (g > 0) {
                running.put(a, g);
            }
        }
        lastRunning = running;
        Map<String, Double> subtree = new HashMap<>();
        for (String r : tree.roots()) {
            rollUp(tree, r, subtree);
        }
        Map<String, Integer> rank = new HashMap<>();
        Map<String, Double> value = new HashMap<>();
        int[] next = {0};
        assign(tree, tree.roots(), subtree, rank, value, next);
        return new AccountRanking() {
            @Override
            public int rankOf(String account) {
                return rank.getOrDefault(account, Integer.MAX_VALUE);
            }

            @Override
            public List<AccountRatio> aheadOf(String account) {
                Integer mine = rank.get(account);
                List<AccountRatio> out = new ArrayList<>();
                if (mine == null) {
                    return out;
                }
                rank.entrySet().stream().filter(e -> e.getValue() < mine)
                        .sorted(Map.Entry.comparingByValue())
                        .limit(10)
                        .forEach(e -> out.add(new AccountRatio(e.getKey(), value.getOrDefault(e.getKey(), 0.0),
                                subtree.getOrDefault(e.getKey(), 0.0), tree.fraction(e.getKey()))));
                return out;
            }
        };
    }

    private static void collect(BudgetView tree, List<String> level, List<String> out) {
        for (String a : level) {
            out.add(a);
            collect(tree, tree.children(a), out);
        }
    }

    private double rollUp(BudgetView tree, String a, Map<String, Double> subtree) {
        double u = usage.getOrDefault(a, 0.0);
        for (String c : tree.children(a)) {
            u += rollUp(tree, c, subtree);
        }
        subtree.put(a, u);
        return u;
    }

    private static void assign(BudgetView tree, List<String> siblings, Map<String, Double> subtree,
            Map<String, Integer> rank, Map<String, Double> value, int[] next) {
        List<String> sorted = new ArrayList<>(siblings);
        for (String s : sorted) {
            double f = tree.fraction(s);
            value.put(s, f > 0 ? subtree.getOrDefault(s, 0.0) / f : Double.POSITIVE_INFINITY);
        }
        sorted.sort(Comparator.<String>comparingDouble(value::get)
                .thenComparing(Comparator.<String>comparingDouble(tree::fraction).reversed())
                .thenComparing(Comparator.naturalOrder()));
        for (String s : sorted) {
            rank.put(s, next[0]++);
            assign(tree, tree.children(s), subtree, rank, value, next);
        }
    }

    @Override
    public boolean contractsProtect() {
        return false;
    }
}
