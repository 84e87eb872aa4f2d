package dev.allot.core.policy;

import dev.allot.core.JobView;
import dev.allot.core.explain.ReasonFormat;
import dev.allot.core.ordering.FairTree;
import java.util.List;

/**
 * Allot's policy: hierarchical fair share over GPU-time budgets (Fair Tree ranking by
 * charged/entitled ratio), contracts protect, allocated jobs preempt unallocated jobs at any
 * time and allocated jobs past their protected window whose accounts rank below by at least
 * {@code margin}, blocked top jobs get reservations.
 */
public final class BudgetPolicy implements SchedulingPolicy {

    private final double margin;

    public BudgetPolicy(double margin) {
        this.margin = margin;
    }

    public BudgetPolicy() {
        this(0.1);
    }

    public double margin() {
        return margin;
    }

    @Override
    public String name() {
        return "budget";
    }

    /** Allot keeps a debug lane: see {@link dev.allot.core.ordering.DebugLane}. */
    @Override
    public boolean hasDebugLane() {
        return true;
    }

    @Override
    public AccountRanking rankAccounts(PolicyContext ctx) {
        return FairTree.rank(ctx.budgets(), account -> ctx.usage(account));
    }

    /**
     * Preemption rule (b): the two accounts' paths diverge at some level; the victim's side must
     * have a ratio at least {@code margin} above the preemptor's side there. Same account, or one
     * account above the other in the tree, counts as equal rank: never.
     */
    @Override
    public PreemptionVerdict mayDisplace(JobView preemptor, JobView victim, PolicyContext ctx) {
        BudgetView tree = ctx.budgets();
        if (!tree.exists(preemptor.account())) {
            return PreemptionVerdict.no("preemptor's account " + preemptor.account() + " is not in the budget tree");
        }
        if (!tree.exists(victim.account())) {
            return new PreemptionVerdict(true, Double.POSITIVE_INFINITY, ctx.usage(preemptor.account()).ratio(),
                    "victim's account " + victim.account() + " has no budget any more");
        }
        List<String> p = tree.path(preemptor.account());
        List<String> v = tree.path(victim.account());
        int i = divergence(p, v);
        if (i == p.size() || i == v.size()) {
            return PreemptionVerdict.no("accounts " + preemptor.account() + " and " + victim.account()
                    + " share a path in the tree (equal rank)");
        }
        String ps = p.get(i);
        String vs = v.get(i);
        double pr = ctx.usage(ps).ratio();
        double vr = ctx.usage(vs).ratio();
        boolean allowed = allowed(pr, vr);
        String why = (allowed ? "" : "not ") + "allowed: " + vs + " (ratio " + ReasonFormat.ratio(vr) + ") vs " + ps
                + " (ratio " + ReasonFormat.ratio(pr) + "), margin " + ReasonFormat.ratio(margin);
        return new PreemptionVerdict(allowed, vr, pr, why);
    }

    /** {@link #mayDisplace}'s answer without its reason (the core asks this for every pair of accounts it meets). */
    @Override
    public boolean allowsDisplacing(JobView preemptor, JobView victim, PolicyContext ctx) {
        BudgetView tree = ctx.budgets();
        if (!tree.exists(preemptor.account())) {
            return false;
        }
        if (!tree.exists(victim.account())) {
            return true;
        }
        List<String> p = tree.path(preemptor.account());
        List<String> v = tree.path(victim.account());
        int i = divergence(p, v);
        if (i == p.size() || i == v.size()) {
            return false;
        }
        return allowed(ctx.usage(p.get(i)).ratio(), ctx.usage(v.get(i)).ratio());
    }

    /** The first level where the two paths differ (the size of the shorter if one contains the other). */
    private static int divergence(List<String> p, List<String> v) {
        int i = 0;
        while (i < p.size() && i < v.size() && p.get(i).equals(v.get(i))) {
            i++;
        }
        return i;
    }

    private boolean allowed(double preemptorRatio, double victimRatio) {
        return victimRatio >= preemptorRatio + margin && !(Double.isInfinite(preemptorRatio));
    }
}
