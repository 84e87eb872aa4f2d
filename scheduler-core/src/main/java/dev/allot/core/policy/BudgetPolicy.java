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

    /** The protected ratio's default: off (see {@link #protectedRatio()}; the sensitivity is in docs/benchmarks.md). */
    public static final double DEFAULT_PROTECTED_RATIO = 0;

    private final double margin;
    private final double protectedRatio;

    /**
     * @param margin how much higher the victim's side's ratio must be than the preemptor's
     * @param protectedRatio a side whose ratio is below this keeps its running work whatever the
     *     preemptor's ratio (Armada's protected fraction of fair share; 1: every account at or under
     *     its entitlement keeps its work)
     */
    public BudgetPolicy(double margin, double protectedRatio) {
        this.margin = margin;
        this.protectedRatio = protectedRatio;
    }

    public BudgetPolicy(double margin) {
        this(margin, DEFAULT_PROTECTED_RATIO);
    }

    public BudgetPolicy() {
        this(0.1);
    }

    public double protectedRatio() {
        return protectedRatio;
    }

    public double margin() {
        return margin;
    }

    @Override
    public String name() {
        return "budget";
    }

    /**
     * The first-ranked blocked job, holding a reservation, displaces work past its protected window
     * on its nodes: it waits at most the longest protected window, not until the nodes empty.
     */
    @Override
    public boolean reservationHoldersDisplace() {
        return true;
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
        Comparison c = compare(preemptor, victim, ctx);
        return switch (c.outcome()) {
            case PREEMPTOR_WITHOUT_BUDGET -> PreemptionVerdict.no(
                    "preemptor's account " + preemptor.account() + " is not in the budget tree");
            case VICTIM_WITHOUT_BUDGET -> new PreemptionVerdict(true, Double.POSITIVE_INFINITY,
                    ctx.usage(preemptor.account()).ratio(),
                    "victim's account " + victim.account() + " has no budget any more");
            case SHARED_PATH -> PreemptionVerdict.no("accounts " + preemptor.account() + " and " + victim.account()
                    + " share a path in the tree (equal rank)");
            case RATIOS -> new PreemptionVerdict(c.allowed(), c.victimRatio(), c.preemptorRatio(),
                    (c.allowed() ? "" : "not ") + "allowed: " + c.victimSide() + " (ratio "
                            + ReasonFormat.ratio(c.victimRatio()) + ") vs " + c.preemptorSide() + " (ratio "
                            + ReasonFormat.ratio(c.preemptorRatio()) + "), margin " + ReasonFormat.ratio(margin)
                            + (protectedRatio > 0 ? ", protected below " + ReasonFormat.ratio(protectedRatio) : ""));
        };
    }

    /** {@link #mayDisplace}'s answer without its reason (the core asks this for every pair of accounts it meets). */
    @Override
    public boolean allowsDisplacing(JobView preemptor, JobView victim, PolicyContext ctx) {
        return compare(preemptor, victim, ctx).allowed();
    }

    private enum Outcome { PREEMPTOR_WITHOUT_BUDGET, VICTIM_WITHOUT_BUDGET, SHARED_PATH, RATIOS }

    /** Rule (b) once, for both answers: the sides compared and the verdict; the reason is worded only by mayDisplace. */
    private record Comparison(Outcome outcome, boolean allowed, String preemptorSide, String victimSide,
            double preemptorRatio, double victimRatio) {
    }

    private Comparison compare(JobView preemptor, JobView victim, PolicyContext ctx) {
        BudgetView tree = ctx.budgets();
        if (!tree.exists(preemptor.account())) {
            return new Comparison(Outcome.PREEMPTOR_WITHOUT_BUDGET, false, null, null, Double.NaN, Double.NaN);
        }
        if (!tree.exists(victim.account())) {
            return new Comparison(Outcome.VICTIM_WITHOUT_BUDGET, true, null, null, Double.NaN, Double.NaN);
        }
        List<String> p = tree.path(preemptor.account());
        List<String> v = tree.path(victim.account());
        int i = divergence(p, v);
        if (i == p.size() || i == v.size()) {
            return new Comparison(Outcome.SHARED_PATH, false, null, null, Double.NaN, Double.NaN);
        }
        String ps = p.get(i);
        String vs = v.get(i);
        double pr = ctx.usage(ps).ratio();
        double vr = ctx.usage(vs).ratio();
        return new Comparison(Outcome.RATIOS, allowed(pr, vr), ps, vs, pr, vr);
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
        return victimRatio >= preemptorRatio + margin && !(Double.isInfinite(preemptorRatio))
                && victimRatio >= protectedRatio;
    }
}
