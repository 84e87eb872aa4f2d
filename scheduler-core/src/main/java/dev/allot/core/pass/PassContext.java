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
import java.util.ArrayList;
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
    /** Whether placements and preemptions carry their reasons (a forward run reads none). */
    public final boolean reasons;
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
        this(cs, t, passNo, config, policy, tree, ledger, jobs, true);
    }

    /** @param reasons whether decisions carry their reasons (see {@code Scheduler.writeReasons}) */
    public PassContext(ClusterState cs, long t, long passNo, SchedulerConfig config, SchedulingPolicy policy,
            BudgetTree tree, UsageLedger ledger, Jobs jobs, boolean reasons) {
        this.reasons = reasons;
        this.cs = cs;
        this.t = t;
        this.passNo = passNo;
        this.usage = WindowUsage.of(cs.name, tree, ledger, cs.registeredGpus(), t);
        this.config = config;
        this.policy = policy;
        this.tree = tree;
        this.jobs = jobs;
        this.displacement = new DisplacementMemo(this, jobs.accountCount());
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

    /**
     * Allocated GPUs under each account, built on first use from the cluster's rates (which already
     * hold this pass's changes by then) and kept live after; {@link #passChanges} lets the pass's
     * start be derived.
     */
    private HashMap<String, Integer> allocatedUnder;
    /** Allocated jobs this pass placed (+GPUs) or released (-GPUs), in order: few per pass. */
    private final ArrayList<Object[]> passChanges = new ArrayList<>();

    @Override
    public int allocatedGpusUnder(String account) {
        return allocatedUnder().getOrDefault(account, 0);
    }

    /**
     * {@link #allocatedGpusUnderAtStart} for every account, built once asked (it does not change
     * during the pass): the live counts with this pass's changes taken back, once, instead of a
     * walk over every change for each account asked (a full pass places thousands of jobs).
     */
    private HashMap<String, Integer> allocatedAtStart;

    @Override
    public int allocatedGpusUnderAtStart(String account) {
        if (allocatedAtStart == null) {
            allocatedAtStart = new HashMap<>(allocatedUnder());
            for (Object[] c : passChanges) {
                addUnder(allocatedAtStart, (String) c[0], -(Integer) c[1]);
            }
        }
        return allocatedAtStart.getOrDefault(account, 0);
    }

    private HashMap<String, Integer> allocatedUnder() {
        if (allocatedUnder == null) {
            allocatedUnder = new HashMap<>();
            for (Map.Entry<String, int[]> e : cs.rates().entrySet()) {
                addUnder(allocatedUnder, e.getKey(), e.getValue()[0]);
            }
        }
        return allocatedUnder;
    }

    private void addUnder(HashMap<String, Integer> m, String account, int gpus) {
        if (gpus == 0) {
            return;
        }
        List<String> path = tree.path(account);
        if (path.isEmpty()) {
            m.merge(account, gpus, Integer::sum);
        }
        for (String a : path) {
            m.merge(a, gpus, Integer::sum);
        }
    }

    /** {@code SchedulingPolicy.displacesAllocatedNow}, by account until the pass's counts change. */
    private byte[] displacesAllocated;

    boolean displacesAllocatedNow(Job preemptor) {
        if (displacesAllocated == null) {
            displacesAllocated = new byte[jobs.accountCount()];
        }
        int a = preemptor.accountId();
        if (a >= displacesAllocated.length) {
            return policy.displacesAllocatedNow(preemptor, this);
        }
        if (displacesAllocated[a] == 0) {
            displacesAllocated[a] = policy.displacesAllocatedNow(preemptor, this) ? (byte) 1 : (byte) 2;
        }
        return displacesAllocated[a] == 1;
    }

    /** An allocated job was placed (+) or released (-) by this pass: the live counts follow. */
    private void allocatedChanged(Job j, int sign) {
        if (!j.allocated()) {
            return;
        }
        int gpus = sign * j.gpus();
        passChanges.add(new Object[] {j.account(), gpus});
        displacesAllocated = null;
        if (allocatedUnder != null) {
            addUnder(allocatedUnder, j.account(), gpus);
        }
    }

    @Override
    public int capacityGpus() {
        if (capacity < 0) {
            capacity = cs.capacityGpus(); // no node comes or goes during a pass
        }
        return capacity;
    }

    private int capacity = -1;

    /** Contract: unallocated, unprotected by policy, or past its protected window. */
    public boolean preemptibleNow(Job r) {
        return r.unallocated() || !policy.contractsProtect() || t >= r.protectedUntilMillis();
    }

    /** Only allocated work preempts (the brief's rule), and only if the policy lets it. */
    public boolean mayPreempt(Job j) {
        return j.allocated() && policy.mayPreempt(j, this);
    }

    /**
     * May {@code preemptor} displace {@code victim} (past its protection, or unallocated)? Not a job
     * placed by displacing others within the no-thrash window, nor a job of an account that displaced
     * one of the preemptor's account within it; otherwise unallocated work always, allocated work when
     * the policy allows it (and, unless {@code Goodput.laneDisplacesAllocated}, not by a lane job where
     * the cluster holds nodes for the lane: it waits for them).
     */
    public boolean displaceable(Job preemptor, Job victim) {
        if (victim.guardedUntilMillis() > t) {
            return false;
        }
        if (overLossCap(victim)) {
            return false;
        }
        return victim.unallocated() ? displacement.unguarded(preemptor, victim.accountId())
                : displacement.allowed(preemptor, victim) && mayDisplaceAllocated(preemptor);
    }

    /**
     * The preemptor's side of {@link #displaceable} for allocated victims, the same for all of them:
     * the policy's {@code displacesAllocatedNow} and the lane's rule. If no, a victim search need
     * not look past unallocated work.
     */
    public boolean mayDisplaceAllocated(Job preemptor) {
        return displacesAllocatedNow(preemptor)
                && (config.goodput().laneDisplacesAllocated() || !cs.inLaneGroup(preemptor) || cs.laneNodes.isEmpty());
    }

    /**
     * Whether the job's account may displace anything at all now, judged by account: some account
     * has preemptible work this one may displace (jobs guarded from thrashing are not looked at, so
     * a yes may still find nothing). A no holds for every job of the account in this pass, since
     * nothing becomes preemptible during a pass.
     */
    private Boolean barUnallocated;

    /**
     * Whether unallocated work keeps off open nodes in this pass: allocated work waits there that
     * would displace it at its next chance (see {@code Goodput.unallocatedBesideBacklog}). Fixed at
     * the first question of the pass.
     */
    public boolean unallocatedBarredFromOpenNodes(Job j) {
        return j.unallocated() && unallocatedKeptOffOpenNodes();
    }

    /** {@link #unallocatedBarredFromOpenNodes} for any unallocated job. */
    public boolean unallocatedKeptOffOpenNodes() {
        if (barUnallocated == null) {
            barUnallocated = !config.goodput().unallocatedBesideBacklog() && policy.preempts()
                    && !cs.shapes.allocated().isEmpty() && someWaitingJobMayPreempt();
        }
        return barUnallocated;
    }

    /** Whether a waiting allocated job of this cluster may preempt (the policy is asked of one per account). */
    private boolean someWaitingJobMayPreempt() {
        for (var e : cs.shapes.accounts()) {
            if (e.getValue().allocated().isEmpty()) {
                continue;
            }
            List<Job> list = cs.queues.listOf(e.getKey());
            if (list == null) {
                return true; // (not filed yet: assume it may)
            }
            for (Job j : list) {
                if (j.waiting() && j.allocated()) {
                    if (mayPreempt(j)) {
                        return true;
                    }
                    break;
                }
            }
        }
        return false;
    }

    /** An allocated victim that would lose more than the cap per GPU is spared: the preemption would not pay. */
    private boolean overLossCap(Job victim) {
        long cap = config.goodput().maxLossPerGpuMillis();
        return cap > 0 && victim.allocated() && victim.running()
                && dev.allot.core.preemption.VictimOrder.lostMillis(victim, t, 0) > cap * victim.gpus();
    }

    /**
     * The reservation right: the holder of a reservation of several nodes (the first-ranked blocked
     * gang) may displace allocated work of other accounts past its protected window on the nodes it
     * holds, whatever their ratios, within the no-thrash guard and the loss cap, so a gang waits at
     * most the longest protected window for its nodes to free up together. A one-node job has no
     * such right: one node's end comes soon, and a job that needs one node displaces by the
     * ratios and the share rule like any other (docs/benchmarks.md: what the right cost when one-node
     * holders had it). {@code onItsNodes}: the victim must run on a node reserved for it (false while
     * planning a reservation, before any node is).
     */
    public boolean displaceableByHolder(Job holder, Job victim, boolean onItsNodes) {
        if (holderRightFrom(holder, victim) != t) {
            return false;
        }
        if (!onItsNodes) {
            return true;
        }
        dev.allot.core.cluster.Node[] nodes = cs.nodeArray();
        for (int i : cs.nodeIndices(victim)) {
            if (i >= 0 && holder.jobId().equals(nodes[i].reservedFor())) {
                return true;
            }
        }
        return false;
    }

    /**
     * While a held reservation is planned: from when the holder's right ({@link #displaceableByHolder})
     * will reach this victim if nothing else changes, {@link Long#MAX_VALUE} if it never will. The
     * victim's own no-thrash guard lapses at a known time and is waited out (judged as permanent, a
     * guard of an hour made a node look busy until its job's expected end, days away, and the
     * reservation's due time swung by hundreds of hours from pass to pass); the pair guard is not,
     * since the victim's account renews it each time it displaces the holder's again.
     */
    public long holderRightFrom(Job holder, Job victim) {
        if (!policy.reservationHoldersDisplace() || holder.request().replicas() < 2 || !victim.allocated()
                || victim.accountId() == holder.accountId() || overLossCap(victim)) {
            return Long.MAX_VALUE;
        }
        return displacement.unguarded(holder, victim.accountId()) ? Math.max(t, victim.guardedUntilMillis()) : Long.MAX_VALUE;
    }

    public boolean mayDisplaceAnyone(Job preemptor) {
        return displacement.anyone(preemptor);
    }

    /** What the preemptor's account may displace now, as sets of account ids ({@link VictimAccounts}); null if the policy cannot say. */
    VictimAccounts.Sets victimAccounts(Job preemptor) {
        return victimAccounts().of(preemptor);
    }

    /**
     * The nodes where a victim search for this preemptor (not a reservation holder's, which may take
     * more) can find victims: those holding preemptible work of the accounts it may displace
     * ({@link VictimAccounts}), of each charge mode; null if the policy cannot say. A superset: a
     * search looks only there (and on nodes free enough) and finds what a scan of every node finds.
     */
    public VictimSearch.NodeMask victimNodes(Job preemptor) {
        VictimAccounts.Sets sets = victimAccounts(preemptor);
        return sets == null ? null
                : victimNodes.computeIfAbsent(sets, s -> victims().nodesHosting(s.allocated(), s.unallocated()));
    }

    /** By sets (kept per account until a displacement, so by identity), their nodes. */
    private final java.util.IdentityHashMap<VictimAccounts.Sets, VictimSearch.NodeMask> victimNodes =
            new java.util.IdentityHashMap<>();

    VictimAccounts victimAccounts() {
        if (victimAccounts == null) {
            victimAccounts = new VictimAccounts(this, displacement);
        }
        return victimAccounts;
    }

    private VictimAccounts victimAccounts;

    /** The policy's answers by account for this pass ({@code SchedulingPolicy.accountPairs}), or null. */
    dev.allot.core.policy.AccountPairs accountPairs() {
        if (!accountPairsAsked) {
            accountPairs = policy.accountPairs(this);
            accountPairsAsked = true;
        }
        return accountPairs;
    }

    private dev.allot.core.policy.AccountPairs accountPairs;
    private boolean accountPairsAsked;

    /**
     * Whether some running job the preemptor may displace now runs on a node {@code eligible} accepts
     * (found by walking the preemptible jobs account by
     * account instead of every node: the first usable one ends it).
     */
    public boolean anyDisplaceableVictim(Job preemptor, VictimSearch.Eligibility eligible) {
        victims(); // the index brought up to the pass's time
        VictimAccounts.Sets sets = victimAccounts().raw(preemptor);
        if (sets != null) { // the accounts it may take from, unallocated work first
            return VictimAccounts.any(sets.unallocated(), v -> hasVictim(preemptor, v, eligible, true))
                    || displacesAllocatedNow(preemptor)
                            && VictimAccounts.any(sets.allocated(), v -> hasVictim(preemptor, v, eligible, false));
        }
        // unallocated work first (no policy question), then only accounts the policy's index allows
        for (int v : displacement.victimAccounts(true)) {
            if (displacement.unguarded(preemptor, v) && hasVictim(preemptor, v, eligible, true)) {
                return true;
            }
        }
        return displacesAllocatedNow(preemptor)
                && displacement.anyAllocatedWhere(preemptor, v -> hasVictim(preemptor, v, eligible, false));
    }

    /** Whether a running job of account {@code v}, of that charge mode, is displaceable by the preemptor on an eligible node. */
    private boolean hasVictim(Job preemptor, int v, VictimSearch.Eligibility eligible, boolean unallocated) {
        List<List<Job>> byAccount = displacement.victimsByAccount();
        if (v >= byAccount.size()) {
            return false;
        }
        dev.allot.core.cluster.Node[] nodes = cs.nodeArray();
        for (Job j : byAccount.get(v)) {
            if (j.unallocated() != unallocated || !j.running() || (j.placedAtMillis() == t && placed.contains(j))
                    || !displaceable(preemptor, j)) {
                continue;
            }
            for (int i : cs.nodeIndices(j)) {
                if (i >= 0 && eligible.test(nodes[i])) {
                    return true;
                }
            }
        }
        return false;
    }

    /** {@code preemptor}'s job displaced {@code victim}: the reverse is barred for the no-thrash window. */
    public void displaced(Job preemptor, Job victim) {
        displacements++;
        allocatedChanged(victim, -1);
        long window = config.goodput().noThrashMillis();
        if (window > 0 && preemptor.accountId() != victim.accountId()) {
            cs.thrash.displaced(preemptor.accountId(), victim.accountId(), t, window);
            displacement.barred(victim.accountId(), preemptor.accountId());
        }
    }

    private int displacements;

    /** How many jobs this pass displaced so far. */
    public int displacements() {
        return displacements;
    }

    /** The policy's verdict, with its reason, on a victim {@link #displaceable} allowed. */
    public PreemptionVerdict verdict(Job preemptor, Job victim) {
        return displacement.verdict(preemptor, victim);
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
        allocatedChanged(j, +1);
    }

    public VictimSearch victims() {
        if (victims == null) {
            cs.preemptible.advanceTo(cs, t);
            victims = new VictimSearch(cs, t, config.goodput().restartMillis(), placed);
        }
        return victims;
    }
}
