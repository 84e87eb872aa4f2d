package dev.allot.core.pass;

import dev.allot.core.SchedulerConfig;
import dev.allot.core.budget.BudgetTree;
import dev.allot.core.explain.AccountUsage;
import dev.allot.core.policy.BudgetView;
import dev.allot.core.policy.PolicyContext;
import dev.allot.core.policy.PreemptionVerdict;
import dev.allot.core.policy.SchedulingPolicy;
import dev.allot.core.preemption.VictimSearch;
import dev.allot.core.reservation.Reservation;
import dev.allot.core.state.ClusterState;
import dev.allot.core.state.Job;
import dev.allot.core.state.Jobs;
import dev.allot.core.usage.UsageLedger;
import dev.allot.core.usage.WindowUsage;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What one pass over one cluster knows, and the policy's view of it (Kueue's per-cycle entry
 * over a snapshot, Armada's scheduling context): the time, the window usage fixed at its start,
 * the policy's answers memoised for the pass, the jobs placed in it and the victim search built
 * on first use. Internal; made for one pass and dropped after it.
 */
public final class PassContext implements PolicyContext {
    public final ClusterState cs;
    public final long t;
    /** The pass's number (every cluster's pass in one {@code schedule} call shares it). */
    public final long passNo;
    public final SchedulerConfig config;
    public final SchedulingPolicy policy;
    public final Jobs jobs;
    private final BudgetTree tree;
    private final HashMap<String, AccountUsage> usage;
    private HashMap<String, Integer> under;
    private final DisplacementMemo displacement;
    /** Reservation holders by job id: a small map, asked for every job walked while reservations stand. */
    private final HashMap<String, Holder> holders = new HashMap<>();
    /** Jobs placed in this pass: never victims in it. */
    private final Set<Job> placed = Collections.newSetFromMap(new IdentityHashMap<>());
    private VictimSearch victims;

    /** A pass over {@code cs} at {@code t}; the window usage is read from {@code ledger} now, once. */
    public PassContext(ClusterState cs, long t, long passNo, SchedulerConfig config, SchedulingPolicy policy,
            BudgetTree tree, UsageLedger ledger, Jobs jobs) {
        this.cs = cs;
        this.t = t;
        this.passNo = passNo;
        this.usage = WindowUsage.of(cs.name, tree, ledger, cs.entitlement, t);
        this.config = config;
        this.policy = policy;
        this.tree = tree;
        this.jobs = jobs;
        this.displacement = new DisplacementMemo(jobs.accountCount());
    }

    @Override
    public long nowMillis() {
        return t;
    }

    @Override
    public String cluster() {
        return cs.name;
    }

    @Override
    public SchedulerConfig config() {
        return config;
    }

    @Override
    public BudgetView budgets() {
        return tree;
    }

    @Override
    public AccountUsage usage(String account) {
        AccountUsage u = usage.get(account);
        return u != null ? u : new AccountUsage(account, cs.name, 0, 0, 0, Double.POSITIVE_INFINITY, 0);
    }

    @Override
    public int runningGpus(String account) {
        return cs.runningGpus(account);
    }

    @Override
    public int runningGpusUnder(String account) {
        if (under == null) {
            under = new HashMap<>();
            for (Map.Entry<String, int[]> e : cs.rates().entrySet()) {
                int gpus = e.getValue()[0] + e.getValue()[1];
                List<String> path = tree.path(e.getKey());
                if (path.isEmpty()) {
                    under.merge(e.getKey(), gpus, Integer::sum);
                }
                for (String a : path) {
                    under.merge(a, gpus, Integer::sum);
                }
            }
        }
        return under.getOrDefault(account, 0);
    }

    @Override
    public int capacityGpus() {
        return cs.capacityGpus();
    }

    /** Contract: unallocated, unprotected by policy, or past its protected window. */
    public boolean preemptibleNow(Job r) {
        return r.unallocated() || !policy.contractsProtect() || t >= r.protectedUntilMillis();
    }

    /** Only allocated work preempts (the brief's rule), and only if the policy lets it. */
    public boolean mayPreempt(Job j) {
        return j.allocated() && policy.mayPreempt(j, this);
    }

    /** May {@code preemptor} displace the allocated job {@code victim} once it is past protection? */
    public boolean displaceable(Job preemptor, Job victim) {
        return displacement.allowed(preemptor, victim);
    }

    /** The policy's verdict, with its reason, on a victim {@link #displaceable} allowed. */
    public PreemptionVerdict verdict(Job preemptor, Job victim) {
        return displacement.verdict(preemptor, victim);
    }

    /**
     * The policy's answer on displacing by account pair, asked once per pass: whether it allows it
     * (asked for every pair a search meets) and, for victims taken, the verdict with its reason.
     * Account ids are only given at submit, so none appears during the pass.
     */
    private final class DisplacementMemo {
        /** By preemptor then victim account id: 0 not asked yet, 1 allowed, 2 not. */
        private final byte[][] allowed;
        private final PreemptionVerdict[][] verdicts;

        DisplacementMemo(int accounts) {
            allowed = new byte[accounts][];
            verdicts = new PreemptionVerdict[accounts][];
        }

        boolean allowed(Job preemptor, Job victim) {
            if (preemptor.accountId() == victim.accountId()) {
                return false;
            }
            byte[] byVictim = allowed[preemptor.accountId()];
            if (byVictim == null) {
                byVictim = new byte[allowed.length];
                allowed[preemptor.accountId()] = byVictim;
            }
            byte a = byVictim[victim.accountId()];
            if (a == 0) {
                a = policy.allowsDisplacing(preemptor, victim, PassContext.this) ? (byte) 1 : (byte) 2;
                byVictim[victim.accountId()] = a;
            }
            return a == 1;
        }

        PreemptionVerdict verdict(Job preemptor, Job victim) {
            PreemptionVerdict[] byVictim = verdicts[preemptor.accountId()];
            if (byVictim == null) {
                byVictim = new PreemptionVerdict[verdicts.length];
                verdicts[preemptor.accountId()] = byVictim;
            }
            PreemptionVerdict v = byVictim[victim.accountId()];
            if (v == null) {
                v = policy.mayDisplace(preemptor, victim, PassContext.this);
                byVictim[victim.accountId()] = v;
            }
            return v;
        }
    }

    /** A reservation holder and, once asked, whether it may preempt. */
    private static final class Holder {
        final Job job;
        Boolean mayPreempt;

        Holder(Job job) {
            this.job = job;
        }
    }

    private Holder holderOf(String jobId) {
        Holder h = holders.get(jobId);
        if (h == null) {
            h = new Holder(jobs.get(jobId));
            holders.put(jobId, h);
        }
        return h;
    }

    public Job holder(Reservation r) {
        return holderOf(r.jobId()).job;
    }

    /** {@link #mayPreempt} of the reservation's holder, asked once per pass (it is asked for every job walked). */
    public boolean holderMayPreempt(Reservation r) {
        Holder h = holderOf(r.jobId());
        if (h.mayPreempt == null) {
            h.mayPreempt = mayPreempt(h.job);
        }
        return h.mayPreempt;
    }

    /** Records a placement made by this pass. */
    public void placed(Job j) {
        placed.add(j);
    }

    public VictimSearch victims() {
        if (victims == null) {
            cs.preemptible.advanceTo(cs, t);
            victims = new VictimSearch(cs, t, placed);
        }
        return victims;
    }
}
