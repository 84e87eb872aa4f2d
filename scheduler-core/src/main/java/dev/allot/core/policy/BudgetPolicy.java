package dev.allot.core.policy;

import dev.allot.core.SchedulerConfig;
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
    /** The protected fraction's default: 1, the share rule on (0: off; see {@link #BudgetPolicy(double, double, double)}). */
    public static final double DEFAULT_PROTECTED_FRACTION = 1;

    private final double margin;
    private final double protectedRatio;
    private final double protectedFraction;

    /**
     * @param margin how much higher the victim's side's ratio must be than the preemptor's
     * @param protectedRatio a side whose ratio is below this keeps its running work whatever the
     *     preemptor's ratio (Armada's protected fraction of fair share; 1: every account at or under
     *     its entitlement keeps its work)
     */
    public BudgetPolicy(double margin, double protectedRatio) {
        this(margin, protectedRatio, DEFAULT_PROTECTED_FRACTION);
    }

    /**
     * @param protectedFraction the share rule (0: off): an account displaces allocated work only while
     *     its allocated GPUs running now are below its fraction of the cluster's GPUs, and the victim's
     *     side keeps its work while it runs no more than {@code protectedFraction} times its fraction
     *     (Armada's protected fraction of fair share, on what runs now). The window ratio says who is
     *     owed; this says whether taking running work now corrects it or only moves it around.
     */
    public BudgetPolicy(double margin, double protectedRatio, double protectedFraction) {
        if (protectedFraction < 0) {
            throw new IllegalArgumentException("negative protected fraction");
        }
        this.margin = margin;
        this.protectedRatio = protectedRatio;
        this.protectedFraction = protectedFraction;
    }

    public BudgetPolicy(double margin) {
        this(margin, DEFAULT_PROTECTED_RATIO);
    }

    public double protectedFraction() {
        return protectedFraction;
    }

    /**
     * The share rule's preemptor side: the preemptor's own account runs fewer allocated GPUs now (this
     * pass's placements counted) than its fraction of the cluster. A team at or above its share now is
     * catching up already; it waits for GPUs that free up instead of taking running work.
     */
    @Override
    public boolean displacesAllocatedNow(JobView preemptor, PolicyContext ctx) {
        if (protectedFraction <= 0) {
            return true;
        }
        String a = preemptor.account();
        if (!ctx.budgets().exists(a)) {
            return true; // mayDisplace refuses it with its reason
        }
        return ctx.allocatedGpusUnder(a) < ctx.budgets().fraction(a) * ctx.capacityGpus();
    }

    public BudgetPolicy() {
        this(SchedulerConfig.DEFAULT_PREEMPTION_MARGIN);
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
                            + (protectedRatio > 0 ? ", protected below " + ReasonFormat.ratio(protectedRatio) : "")
                            + (protectedFraction > 0 ? "; " + c.victimSide() + " runs "
                                    + ctx.allocatedGpusUnderAtStart(c.victimSide()) + " allocated GPUs, protected up to "
                                    + ReasonFormat.ratio(protectedFraction * ctx.budgets().fraction(c.victimSide())
                                            * ctx.capacityGpus()) + " (" + ReasonFormat.ratio(protectedFraction)
                                    + " x its share of the cluster)" : ""));
        };
    }

    /** {@link #mayDisplace}'s answer without its reason (the core asks this for every pair of accounts it meets). */
    @Override
    public boolean allowsDisplacing(JobView preemptor, JobView victim, PolicyContext ctx) {
        return compare(preemptor, victim, ctx).allowed();
    }

    /** {@link #allowsDisplacing} by the accounts, for one pass: the answer depends on nothing else. */
    @Override
    public AccountPairs accountPairs(PolicyContext ctx) {
        return new PassSides(this, ctx);
    }

    /** The share rule's victim side: it ran more than its protected share when the pass started. */
    boolean aboveProtectedShare(String side, PolicyContext ctx) {
        return protectedFraction <= 0
                || ctx.allocatedGpusUnderAtStart(side) > protectedFraction * ctx.budgets().fraction(side) * ctx.capacityGpus();
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
        boolean allowed = allowed(pr, vr) && aboveProtectedShare(vs, ctx);
        return new Comparison(Outcome.RATIOS, allowed, ps, vs, pr, vr);
    }

    /** The first level where the two paths differ (the size of the shorter if one contains the other). */
    private static int divergence(List<String> p, List<String> v) {
        int i = 0;
        while (i < p.size() && i < v.size() && p.get(i).equals(v.get(i))) {
            i++;
        }
        return i;
    }

    boolean allowed(double preemptorRatio, double victimRatio) {
        return victimRatio >= preemptorRatio + margin && !(Double.isInfinite(preemptorRatio))
                && victimRatio >= protectedRatio;
    }
}
