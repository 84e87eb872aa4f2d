package dev.allot.core;

import dev.allot.core.budget.BudgetTree;
import dev.allot.core.cluster.Node;
import dev.allot.core.contract.Contract;
import dev.allot.core.explain.AccountRatio;
import dev.allot.core.explain.AccountUsage;
import dev.allot.core.explain.Fmt;
import dev.allot.core.explain.Hold;
import dev.allot.core.explain.RunningExplanation;
import dev.allot.core.explain.WaitingExplanation;
import dev.allot.core.policy.AccountRanking;
import dev.allot.core.policy.BudgetPolicy;
import dev.allot.core.policy.BudgetView;
import dev.allot.core.policy.PolicyContext;
import dev.allot.core.policy.PreemptionVerdict;
import dev.allot.core.policy.SchedulingPolicy;
import dev.allot.core.preemption.Candidate;
import dev.allot.core.preemption.VictimSelector;
import dev.allot.core.reservation.Reservation;
import dev.allot.core.reservation.ReservationPlanner;
import dev.allot.core.usage.UsageLedger;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * The scheduling core's facade. Single-threaded: one caller applies events and runs passes in
 * order. Time is always passed in as epoch milliseconds; the core never reads a clock.
 *
 * <p>Events ({@code submit}, {@code cancel}, {@code defineBudget}, {@code registerNode}, ...) change
 * state; {@link #schedule(long)} runs one pass and returns the decisions in the order to carry
 * them out. Decisions taken by the core (placements, preemptions, releases) are already applied
 * to the core's state when returned: the caller does not feed them back. Events reported by
 * nodes ({@link #jobStarted}, {@link #jobFinished}, ...) are facts the core records.
 *
 * <p>Time never goes back: an event stamped before the latest time seen is applied at the latest
 * time seen.
 *
 * <p>Determinism: the same calls with the same arguments in the same order give the same
 * decisions (all internal iteration that reaches a decision is over sorted or insertion-ordered
 * structures; hash maps are used for lookups only).
 *
 * <p>A pass over one cluster, in order (the numbers are referred to in the code):
 * <ol>
 *   <li>Drain: release jobs on draining nodes whose contract allows it; report empty draining nodes.</li>
 *   <li>Drop reservations whose job no longer waits.</li>
 *   <li>Rank accounts with the policy; sort waiting jobs by (account rank, within-account order).</li>
 *   <li>Walk the order; for each job: (a) shape check, (b) admission, (c) place in free GPUs (own
 *       reserved nodes first, then open nodes by best fit, then nodes reserved for others if it may
 *       backfill them), (d) preempt if allowed, (e) reserve nodes if it is among the top blocked
 *       jobs, (f) else record what holds it.</li>
 *   <li>Drop reservations not confirmed by this pass.</li>
 * </ol>
 */
public final class Scheduler {

    private final SchedulerConfig config;
    private final SchedulingPolicy policy;
    private final BudgetTree tree = new BudgetTree();
    private final UsageLedger ledger;
    private final TreeMap<String, ClusterState> clusters = new TreeMap<>();
    private final HashMap<String, Node> nodeById = new HashMap<>();
    private final LinkedHashMap<String, Job> jobs = new LinkedHashMap<>();
    private final ArrayList<Decision> pending = new ArrayList<>();
    private long now = Long.MIN_VALUE;
    private long accountedUntil = Long.MIN_VALUE;
    private long passCounter;

    /** Allot's budget policy and default tunables. */
    public Scheduler() {
        this(SchedulerConfig.defaults());
    }

    public Scheduler(SchedulerConfig config) {
        this(config, new BudgetPolicy(config.preemptionMargin()));
    }

    public Scheduler(SchedulerConfig config, SchedulingPolicy policy) {
        this.config = config;
        this.policy = policy;
        this.ledger = new UsageLedger(config.windowMillis(), config.bucketMillis());
    }

    public SchedulerConfig config() {
        return config;
    }

    public SchedulingPolicy policy() {
        return policy;
    }

    // ---------------------------------------------------------------- time

    /** Moves time to max(now, at), charging running jobs up to it first. */
    private long t(long atMillis) {
        if (atMillis > now) {
            now = atMillis;
        }
        accrue(now);
        return now;
    }

    private void accrue(long to) {
        if (accountedUntil == Long.MIN_VALUE) {
            accountedUntil = to;
            return;
        }
        if (to <= accountedUntil) {
            return;
        }
        if (config.usageFeed() == UsageFeed.RUNNING_JOBS) {
            double seconds = (to - accountedUntil) / 1000.0;
            for (ClusterState cs : clusters.values()) {
                for (Map.Entry<String, int[]> e : cs.rates.entrySet()) {
                    int[] r = e.getValue();
                    if (r[0] > 0) {
                        ledger.add(cs.name, e.getKey(), accountedUntil, to, r[0] * seconds, true);
                    }
                    if (r[1] > 0) {
                        ledger.add(cs.name, e.getKey(), accountedUntil, to, r[1] * seconds, false);
                    }
                }
            }
        }
        accountedUntil = to;
    }

    // ---------------------------------------------------------------- budgets

    /**
     * Defines or changes an account: its parent (null for a root) and its share among siblings.
     * Applies from {@code atMillis} on. An unknown parent is created as a root with share 1.
     *
     * @throws IllegalArgumentException for a negative share or a change that would make a cycle
     */
    public void defineBudget(long atMillis, String account, String parent, double share) {
        long t = t(atMillis);
        tree.define(account, parent, share);
        budgetChanged(t);
    }

    /** Removes an account and its subtree from {@code atMillis} on. Their waiting jobs rank last. */
    public void removeBudget(long atMillis, String account) {
        long t = t(atMillis);
        tree.remove(account);
        budgetChanged(t);
    }

    private void budgetChanged(long t) {
        Map<String, Double> fractions = tree.fractionSnapshot();
        for (ClusterState cs : clusters.values()) {
            cs.entitlement.change(t, cs.capacityGpus(), fractions);
        }
    }

    /** Usage reported for an interval (service feed; the simulator may use it too). */
    public void recordUsage(UsageRecord usage) {
        t(usage.endMillis());
        cluster(usage.cluster());
        ledger.add(usage.cluster(), usage.account(), usage.startMillis(), usage.endMillis(), usage.gpuSeconds(),
                usage.charged());
    }

    private ClusterState cluster(String name) {
        ClusterState cs = clusters.get(name);
        if (cs == null) {
            cs = new ClusterState(name);
            cs.entitlement.change(now, 0, tree.fractionSnapshot());
            clusters.put(name, cs);
        }
        return cs;
    }

    private void capacityChanged(ClusterState cs, long t) {
        cs.entitlement.change(t, cs.capacityGpus(), tree.fractionSnapshot());
    }

    // ---------------------------------------------------------------- nodes

    /**
     * A node registers. A new node starts at epoch 1; a node registering again after it was lost
     * is fenced: it gets a new epoch and starts empty (its stale jobs are to be killed by the
     * caller). A live node registering again keeps its state. Returns the node's epoch.
     */
    public long registerNode(long atMillis, NodeSpec spec) {
        long t = t(atMillis);
        ClusterState cs = cluster(spec.cluster());
        Node n = nodeById.get(spec.nodeId());
        if (n == null) {
            n = new Node(spec);
            nodeById.put(spec.nodeId(), n);
            cs.nodes.put(spec.nodeId(), n);
            cs.open.add(n);
            capacityChanged(cs, t);
        } else if (n.lost()) {
            n.fence();
            cs.open.add(n);
            capacityChanged(cs, t);
        }
        return n.epoch();
    }

    /** Stop placing work on the node; its jobs are released as their contracts allow. */
    public void drainNode(long atMillis, String nodeId) {
        t(atMillis);
        Node n = nodeById.get(nodeId);
        if (n == null || n.draining()) {
            return;
        }
        ClusterState cs = clusters.get(n.cluster());
        n.drain();
        cs.open.remove(n);
        dropReservationHolding(cs, n);
    }

    /** The node takes work again. */
    public void undrainNode(long atMillis, String nodeId) {
        t(atMillis);
        Node n = nodeById.get(nodeId);
        if (n == null || !n.draining()) {
            return;
        }
        n.undrain();
        if (n.available()) {
            clusters.get(n.cluster()).open.add(n);
        }
    }

    /**
     * The node missed its heartbeats: every job with a replica on it goes back to waiting (a
     * {@link Decision.Requeue} is emitted by the next pass, keeping the job's submit time) and its
     * capacity leaves the cluster.
     */
    public void nodeLost(long atMillis, String nodeId) {
        long t = t(atMillis);
        Node n = nodeById.get(nodeId);
        if (n == null || n.lost()) {
            return;
        }
        ClusterState cs = clusters.get(n.cluster());
        dropReservationHolding(cs, n);
        cs.open.remove(n);
        for (String jobId : List.copyOf(n.jobs().keySet())) {
            Job j = jobs.get(jobId);
            release(cs, j, t);
            toWaiting(cs, j, t, true);
            pending.add(new Decision.Requeue(jobId, j.account(), nodeId,
                    "node " + nodeId + " was lost; the job queues again with its submit time "
                            + Fmt.time(j.queuedSince)));
        }
        n.lose();
        capacityChanged(cs, t);
    }

    // ---------------------------------------------------------------- jobs

    /**
     * A job is submitted. Invalid jobs (minimum runtime out of 0..max, no replicas, no GPUs) are
     * rejected by the next pass with a reason. A job id seen before is ignored (idempotent replay).
     * An account without a budget is not a reason: its jobs wait, ranked last.
     */
    public void submit(long atMillis, JobRequest request) {
        t(atMillis);
        if (jobs.containsKey(request.jobId())) {
            return;
        }
        Job j = new Job(request, jobs.size());
        jobs.put(request.jobId(), j);
        Optional<String> invalid = Contract.validate(request, config.maxMinRuntimeMillis());
        if (invalid.isPresent()) {
            j.state = JobState.REJECTED;
            j.rejection = invalid.get();
            pending.add(new Decision.Reject(request.jobId(), request.account(), invalid.get()));
            return;
        }
        cluster(request.cluster()).waiting.put(request.jobId(), j);
    }

    /** The job is withdrawn: waiting jobs finish at once, running jobs release their GPUs. */
    public void cancel(long atMillis, String jobId) {
        finish(atMillis, jobId);
    }

    /** The node agent started the job (fact; the core already counts it running from its placement). */
    public void jobStarted(long atMillis, String jobId) {
        t(atMillis);
    }

    /** The job wrote a checkpoint: work since then is what a preemption would lose. */
    public void jobCheckpointed(long atMillis, String jobId) {
        long t = t(atMillis);
        Job j = jobs.get(jobId);
        if (j != null && j.state == JobState.RUNNING) {
            j.lastCheckpoint = Math.max(j.lastCheckpoint, t);
        }
    }

    /**
     * The job's process exited (any exit code): it is finished and its GPUs are free. An exit
     * reported for a job that is not running (e.g. after it was preempted) is ignored.
     */
    public void jobExited(long atMillis, String jobId, boolean success) {
        Job j = jobs.get(jobId);
        if (j != null && j.state == JobState.RUNNING) {
            finish(atMillis, jobId);
        } else {
            t(atMillis);
        }
    }

    /** The job completed: it is finished and its GPUs are free. */
    public void jobFinished(long atMillis, String jobId) {
        jobExited(atMillis, jobId, true);
    }

    private void finish(long atMillis, String jobId) {
        long t = t(atMillis);
        Job j = jobs.get(jobId);
        if (j == null) {
            return;
        }
        ClusterState cs = clusters.get(j.cluster());
        if (j.state == JobState.RUNNING) {
            release(cs, j, t);
        } else if (j.state == JobState.WAITING) {
            cs.waiting.remove(jobId);
        } else {
            return;
        }
        j.state = JobState.FINISHED;
    }

    // ---------------------------------------------------------------- state changes

    private void place(ClusterState cs, Job j, List<Node> nodes, long t) {
        ArrayList<ReplicaPlacement> replicas = new ArrayList<>(nodes.size());
        for (Node n : nodes) {
            int[] idx = n.allocate(j.jobId(), j.request.gpusPerReplica());
            cs.open.update(n);
            ArrayList<Integer> l = new ArrayList<>(idx.length);
            for (int g : idx) {
                l.add(g);
            }
            replicas.add(new ReplicaPlacement(n.nodeId(), n.epoch(), l));
        }
        cs.waiting.remove(j.jobId());
        cs.running.put(j.jobId(), j);
        j.state = JobState.RUNNING;
        j.placement = List.copyOf(replicas);
        j.placedAt = t;
        j.lastCheckpoint = t;
        j.protectedUntil = Contract.protectedUntil(t, j.request.minRuntimeMillis());
        j.placedInPass = passCounter;
        j.hold = Hold.NOT_YET_SCHEDULED;
        int g = j.gpus();
        cs.runningGpus.merge(j.account(), g, Integer::sum);
        int[] rate = cs.rates.computeIfAbsent(j.account(), a -> new int[2]);
        rate[j.mode == ChargeMode.ALLOCATED ? 0 : 1] += g;
    }

    /** Frees the job's GPUs everywhere; leaves its state to the caller. */
    private void release(ClusterState cs, Job j, long t) {
        for (ReplicaPlacement r : j.placement) {
            Node n = nodeById.get(r.nodeId());
            if (n != null && n.epoch() == r.nodeEpoch()) {
                n.release(j.jobId());
                cs.open.update(n);
            }
        }
        cs.running.remove(j.jobId());
        int g = j.gpus();
        cs.runningGpus.merge(j.account(), -g, Integer::sum);
        if (cs.runningGpus.get(j.account()) == 0) {
            cs.runningGpus.remove(j.account());
        }
        int[] rate = cs.rates.get(j.account());
        rate[j.mode == ChargeMode.ALLOCATED ? 0 : 1] -= g;
        if (rate[0] == 0 && rate[1] == 0) {
            cs.rates.remove(j.account());
        }
        j.placement = List.of();
        j.placedAt = -1;
        j.protectedUntil = -1;
        j.lastCheckpoint = -1;
    }

    /**
     * Back to waiting. Resumable jobs (and jobs requeued through no fault of their own) keep their
     * place by submit time; non-resumable preempted jobs restart from scratch and queue from now.
     */
    private void toWaiting(ClusterState cs, Job j, long t, boolean keepSubmitTime) {
        j.state = JobState.WAITING;
        j.requeues++;
        j.hold = Hold.NOT_YET_SCHEDULED;
        if (!keepSubmitTime) {
            j.queuedSince = t;
        }
        cs.waiting.put(j.jobId(), j);
    }

    // ---------------------------------------------------------------- time and passes

    /**
     * Moves the core's time to {@code nowMillis}: with {@link UsageFeed#RUNNING_JOBS} running jobs
     * are charged up to now. {@link #schedule} calls this itself. Time never goes back: earlier
     * values are ignored.
     */
    public void advanceTo(long nowMillis) {
        t(nowMillis);
    }

    /** Runs one scheduling pass over every cluster (sorted by name) and returns its decisions in order. */
    public List<Decision> schedule(long nowMillis) {
        long t = t(nowMillis);
        passCounter++;
        ArrayList<Decision> out = new ArrayList<>(pending);
        pending.clear();
        long windowStart = ledger.windowStart(t);
        for (ClusterState cs : clusters.values()) {
            pass(cs, t, out);
            cs.entitlement.prune(windowStart);
        }
        return out;
    }

    private void pass(ClusterState cs, long t, List<Decision> out) {
        Pass p = new Pass(cs, t);
        // 1. drain
        for (Node n : cs.nodes.values()) {
            if (!n.draining() || n.lost()) {
                continue;
            }
            for (String jobId : List.copyOf(n.jobs().keySet())) {
                Job j = jobs.get(jobId);
                if (p.preemptibleNow(j)) {
                    String why = "node " + n.nodeId() + " is draining and the job's contract allows release ("
                            + (j.mode == ChargeMode.UNALLOCATED ? "unallocated"
                                    : "protected window ended " + Fmt.time(j.protectedUntil))
                            + ")";
                    release(cs, j, t);
                    boolean keep = j.request.resumable();
                    toWaiting(cs, j, t, keep);
                    out.add(new Decision.ReleaseForDrain(jobId, j.account(), n.nodeId(), keep, why
                            + (keep ? "; requeued keeping its submit time" : "; requeued to restart from scratch")));
                }
            }
            if (n.jobs().isEmpty() && !n.drainedReported()) {
                n.markDrainedReported();
                out.add(new Decision.NodeDrained(n.nodeId(), cs.name, "node " + n.nodeId() + " is drained: no jobs left"));
            }
        }
        // 2. reservations of jobs that no longer wait
        for (Reservation r : List.copyOf(cs.reservations)) {
            Job rj = jobs.get(r.jobId());
            if (rj == null || rj.state != JobState.WAITING) {
                dropReservation(cs, r);
            }
        }
        // 3. ranking and order
        AccountRanking ranking = policy.rankAccounts(p);
        cs.lastRanking = ranking;
        ArrayList<Job> order = new ArrayList<>(cs.waiting.values());
        for (Job j : order) {
            j.rank = ranking.rankOf(j.account());
        }
        Comparator<JobView> within = policy.withinAccount();
        order.sort((a, b) -> {
            int c = Integer.compare(((Job) a).rank, ((Job) b).rank);
            return c != 0 ? c : within.compare(a, b);
        });
        // 4. walk
        HashSet<String> confirmed = new HashSet<>();
        ArrayList<int[]> preemptionFailed = new ArrayList<>();
        int position = 0;
        for (Job j : order) {
            position++;
            j.position = position;
            j.passAt = t;
            j.reservedFor = null;
            j.missing = "";
            int replicas = j.request.replicas();
            int gpus = j.request.gpusPerReplica();
            // (a) shape
            int able = 0;
            for (Node n : cs.nodes.values()) {
                if (n.available() && n.gpus() >= gpus && ++able >= replicas) {
                    break;
                }
            }
            if (able < replicas) {
                j.hold = Hold.NO_SUCH_SHAPE;
                j.missing = replicas + " live nodes with at least " + gpus + " GPUs; cluster " + cs.name + " has "
                        + able;
                continue;
            }
            // (b) admission
            if (!policy.admits(j, p)) {
                j.hold = Hold.ADMISSION_LIMIT;
                j.missing = "admission limit of policy " + policy.name();
                continue;
            }
            Reservation own = cs.reservationOf(j.jobId());
            // (c) free GPUs
            List<Node> fit = fitFree(cs, p, j, own);
            if (fit != null) {
                if (own != null) {
                    dropReservation(cs, own);
                }
                place(cs, j, fit, t);
                out.add(new Decision.Place(j.jobId(), j.account(), cs.name, j.placement, j.mode, j.protectedUntil,
                        placeReason(j, position, ranking, "free GPUs")));
                continue;
            }
            // (d) preemption
            if (policy.mayPreempt(j, p) && !dominatedByFailure(preemptionFailed, replicas, gpus)) {
                if (preempt(cs, p, j, own, position, ranking, out)) {
                    continue;
                }
                preemptionFailed.add(new int[] {replicas, gpus});
            }
            // (e) reservation
            if (policy.reservesForBlockedJobs() && reserve(cs, p, j, own, confirmed, out)) {
                j.hold = Hold.WAITING_FOR_RESERVATION;
                j.reservedFor = j.jobId();
                Reservation r = cs.reservationOf(j.jobId());
                j.missing = replicas + " nodes with " + gpus + " free GPUs; reserved " + r.nodeIds() + ", due "
                        + due(r.dueAtMillis());
                continue;
            }
            // (f) what holds it
            int openNodes = cs.open.countAtLeast(gpus);
            int reservedNodes = 0;
            String blocker = null;
            for (Reservation r : cs.reservations) {
                for (String id : r.nodeIds()) {
                    Node n = nodeById.get(id);
                    if (n.freeGpus() >= gpus) {
                        reservedNodes++;
                        blocker = blocker == null ? r.jobId() : blocker;
                    }
                }
            }
            if (openNodes < replicas && openNodes + reservedNodes >= replicas) {
                j.hold = Hold.RESERVATION;
                j.reservedFor = blocker;
                j.missing = "fits only on nodes reserved for job " + blocker
                        + " and would neither end nor be preemptible before the reservation is due";
            } else {
                j.hold = Hold.MISSING_RESOURCE;
                j.missing = replicas + " nodes with " + gpus + " free GPUs; " + openNodes
                        + " such nodes free and nothing it may preempt";
            }
        }
        // 5. reservations not confirmed by this pass
        for (Reservation r : List.copyOf(cs.reservations)) {
            if (!confirmed.contains(r.jobId())) {
                dropReservation(cs, r);
            }
        }
    }

    private static boolean dominatedByFailure(List<int[]> failed, int replicas, int gpus) {
        for (int[] f : failed) {
            if (replicas >= f[0] && gpus >= f[1]) {
                return true;
            }
        }
        return false;
    }

    private String placeReason(Job j, int position, AccountRanking ranking, String how) {
        StringBuilder b = new StringBuilder();
        b.append("position ").append(position).append(" on ").append(j.cluster()).append(", ")
                .append(j.request.replicas()).append(" x ").append(j.request.gpusPerReplica()).append(" GPUs on ")
                .append(j.placement.stream().map(ReplicaPlacement::nodeId).collect(Collectors.joining(",")))
                .append(" using ").append(how).append("; ");
        if (j.mode == ChargeMode.ALLOCATED) {
            b.append("allocated: charged to ").append(j.account()).append(", protected until ")
                    .append(Fmt.time(j.protectedUntil));
        } else {
            b.append("unallocated: free, preemptible at any time by allocated work");
        }
        List<AccountRatio> ahead = ranking.aheadOf(j.account());
        if (!ahead.isEmpty()) {
            b.append("; ranked behind ").append(ahead);
        }
        return b.toString();
    }

    private static String due(long dueAt) {
        return dueAt == Long.MAX_VALUE ? "unknown (jobs there have no known end)" : Fmt.time(dueAt);
    }

    /** Nodes for the job from free GPUs, or null. */
    private List<Node> fitFree(ClusterState cs, Pass p, Job j, Reservation own) {
        int replicas = j.request.replicas();
        int gpus = j.request.gpusPerReplica();
        ArrayList<Node> chosen = new ArrayList<>(replicas);
        if (own != null) {
            ArrayList<Node> mine = new ArrayList<>();
            for (String id : own.nodeIds()) {
                Node n = nodeById.get(id);
                if (n.freeGpus() >= gpus) {
                    mine.add(n);
                }
            }
            mine.sort(Comparator.comparingInt(Node::freeGpus).thenComparing(Node::nodeId));
            for (Node n : mine) {
                if (chosen.size() < replicas) {
                    chosen.add(n);
                }
            }
        }
        if (chosen.size() < replicas) {
            if (cs.open.countAtLeast(gpus) + chosen.size() >= replicas) {
                chosen.addAll(cs.open.bestFit(replicas - chosen.size(), gpus));
                return chosen;
            }
            // backfill nodes reserved for other jobs
            ArrayList<Node> backfill = new ArrayList<>();
            for (Reservation r : cs.reservations) {
                if (r == own) {
                    continue;
                }
                boolean any = false;
                for (String id : r.nodeIds()) {
                    if (nodeById.get(id).freeGpus() >= gpus) {
                        any = true;
                        break;
                    }
                }
                if (any && mayBackfill(p, j, r)) {
                    for (String id : r.nodeIds()) {
                        Node n = nodeById.get(id);
                        if (n.freeGpus() >= gpus) {
                            backfill.add(n);
                        }
                    }
                }
            }
            if (cs.open.countAtLeast(gpus) + chosen.size() + backfill.size() < replicas) {
                return null;
            }
            chosen.addAll(cs.open.bestFit(replicas - chosen.size(), gpus));
            backfill.sort(Comparator.comparingInt(Node::freeGpus).thenComparing(Node::nodeId));
            for (Node n : backfill) {
                if (chosen.size() < replicas) {
                    chosen.add(n);
                }
            }
        }
        return chosen;
    }

    /**
     * Backfill rule: a job may use nodes reserved for another job only if it will be out of the
     * way by the time the reservation is due: it is unallocated (the reserved job may displace it),
     * or its expected end is before the due time, or its protected window ends before the due
     * time and the reserved job may then displace it.
     */
    private boolean mayBackfill(Pass p, Job j, Reservation r) {
        Job rj = jobs.get(r.jobId());
        boolean holderMayPreempt = policy.mayPreempt(rj, p);
        if (j.mode == ChargeMode.UNALLOCATED && holderMayPreempt) {
            return true;
        }
        long expected = j.request.expectedDurationMillis();
        if (expected >= 0 && p.t + expected <= r.dueAtMillis()) {
            return true;
        }
        long unprotectedFrom = policy.contractsProtect() ? p.t + j.request.minRuntimeMillis() : p.t;
        return holderMayPreempt && unprotectedFrom <= r.dueAtMillis() && p.displaceable(rj, j);
    }

    private boolean preempt(ClusterState cs, Pass p, Job j, Reservation own, int position, AccountRanking ranking,
            List<Decision> out) {
        TreeMap<String, Integer> freeByNode = new TreeMap<>();
        HashMap<String, Boolean> backfillOk = new HashMap<>();
        for (Node n : cs.nodes.values()) {
            if (!n.available() || n.gpus() < j.request.gpusPerReplica()) {
                continue;
            }
            String holder = n.reservedFor();
            if (holder != null && !holder.equals(j.jobId())) {
                Boolean ok = backfillOk.get(holder);
                if (ok == null) {
                    ok = mayBackfill(p, j, cs.reservationOf(holder));
                    backfillOk.put(holder, ok);
                }
                if (!ok) {
                    continue;
                }
            }
            freeByNode.put(n.nodeId(), n.freeGpus());
        }
        List<Candidate> candidates = p.candidatesFor(j);
        if (candidates.isEmpty()) {
            return false;
        }
        Optional<VictimSelector.Selection> sel = VictimSelector.select(j.request.replicas(),
                j.request.gpusPerReplica(), freeByNode, candidates);
        if (sel.isEmpty()) {
            return false;
        }
        long t = p.t;
        StringBuilder victims = new StringBuilder();
        for (Candidate c : sel.get().victims()) {
            Job v = jobs.get(c.jobId());
            PreemptionVerdict verdict = v.mode == ChargeMode.UNALLOCATED ? null : p.verdict(j, v);
            release(cs, v, t);
            boolean keep = v.request.resumable();
            toWaiting(cs, v, t, keep);
            String why;
            if (verdict == null) {
                why = "unallocated jobs may be displaced at any time by allocated work: preempted by job " + j.jobId()
                        + " (account " + j.account() + ")";
            } else {
                why = "preempted by job " + j.jobId() + " (account " + j.account() + "): past its protected window and "
                        + verdict.reason();
            }
            why += keep ? "; resumable, requeued keeping its submit time"
                    : "; not resumable, requeued to restart from scratch";
            out.add(new Decision.Preempt(v.jobId(), v.account(), j.jobId(), j.account(), v.mode,
                    verdict == null ? Double.NaN : verdict.victimRatio(),
                    verdict == null ? Double.NaN : verdict.preemptorRatio(), keep, why));
            victims.append(victims.isEmpty() ? "" : ",").append(v.jobId());
        }
        if (own != null) {
            dropReservation(cs, own);
        }
        ArrayList<Node> nodes = new ArrayList<>();
        for (String id : sel.get().nodes()) {
            nodes.add(nodeById.get(id));
        }
        place(cs, j, nodes, t);
        out.add(new Decision.Place(j.jobId(), j.account(), cs.name, j.placement, j.mode, j.protectedUntil,
                placeReason(j, position, ranking, "GPUs freed by preempting " + victims)));
        return true;
    }

    private boolean reserve(ClusterState cs, Pass p, Job j, Reservation own, HashSet<String> confirmed,
            List<Decision> out) {
        int gpus = j.request.gpusPerReplica();
        if (own != null) {
            boolean intact = true;
            ArrayList<ReservationPlanner.NodeOutlook> outlooks = new ArrayList<>();
            for (String id : own.nodeIds()) {
                Node n = nodeById.get(id);
                if (!n.available() || n.gpus() < gpus) {
                    intact = false;
                    break;
                }
                outlooks.add(outlook(p, j, n));
            }
            if (intact) {
                Optional<ReservationPlanner.Plan> plan = ReservationPlanner.plan(own.nodeIds().size(), gpus, p.t,
                        outlooks);
                long due = plan.map(ReservationPlanner.Plan::dueAtMillis).orElse(Long.MAX_VALUE);
                cs.reservations.set(cs.reservations.indexOf(own),
                        new Reservation(own.jobId(), own.cluster(), own.nodeIds(), due));
                confirmed.add(j.jobId());
                return true;
            }
            dropReservation(cs, own);
        }
        if (cs.reservations.size() >= config.maxReservationsPerCluster()) {
            // take over the reservation of a job ranked after this one (not confirmed yet in this pass)
            Reservation victim = null;
            for (Reservation r : cs.reservations) {
                if (!confirmed.contains(r.jobId())) {
                    victim = r;
                }
            }
            if (victim == null) {
                return false;
            }
            dropReservation(cs, victim);
        }
        if (config.maxReservationsPerCluster() == 0) {
            return false;
        }
        ArrayList<ReservationPlanner.NodeOutlook> outlooks = new ArrayList<>();
        for (Node n : cs.nodes.values()) {
            if (n.available() && n.reservedFor() == null && n.gpus() >= gpus) {
                outlooks.add(outlook(p, j, n));
            }
        }
        Optional<ReservationPlanner.Plan> plan = ReservationPlanner.plan(j.request.replicas(), gpus, p.t, outlooks);
        if (plan.isEmpty()) {
            return false;
        }
        Reservation r = new Reservation(j.jobId(), cs.name, plan.get().nodeIds(), plan.get().dueAtMillis());
        cs.reservations.add(r);
        for (String id : r.nodeIds()) {
            Node n = nodeById.get(id);
            n.reservedFor(j.jobId());
            cs.open.remove(n);
        }
        confirmed.add(j.jobId());
        out.add(new Decision.Reserve(j.jobId(), cs.name, r.nodeIds(), r.dueAtMillis(),
                "job " + j.jobId() + " ranks first among blocked jobs and needs " + j.request.replicas() + " x " + gpus
                        + " GPUs, more than any free block: holding " + r.nodeIds()
                        + " (they free up soonest), due " + due(r.dueAtMillis())
                        + "; only work that ends or may be preempted before then may use them"));
        return true;
    }

    private ReservationPlanner.NodeOutlook outlook(Pass p, Job holder, Node n) {
        ArrayList<ReservationPlanner.Release> rel = new ArrayList<>();
        boolean mayPreempt = policy.mayPreempt(holder, p);
        for (Map.Entry<String, int[]> e : n.jobs().entrySet()) {
            Job r = jobs.get(e.getKey());
            long at;
            if (mayPreempt && r.mode == ChargeMode.UNALLOCATED) {
                at = p.t;
            } else if (mayPreempt && p.displaceable(holder, r)) {
                at = policy.contractsProtect() ? Math.max(p.t, r.protectedUntil) : p.t;
            } else if (r.request.expectedDurationMillis() >= 0) {
                at = Math.max(p.t, r.placedAt + r.request.expectedDurationMillis());
            } else {
                at = Long.MAX_VALUE;
            }
            rel.add(new ReservationPlanner.Release(e.getValue().length, at));
        }
        return new ReservationPlanner.NodeOutlook(n.nodeId(), n.freeGpus(), rel);
    }

    private void dropReservation(ClusterState cs, Reservation r) {
        cs.reservations.remove(r);
        for (String id : r.nodeIds()) {
            Node n = nodeById.get(id);
            if (r.jobId().equals(n.reservedFor())) {
                n.reservedFor(null);
                if (n.available()) {
                    cs.open.add(n);
                }
            }
        }
    }

    private void dropReservationHolding(ClusterState cs, Node n) {
        if (n.reservedFor() != null) {
            Reservation r = cs.reservationOf(n.reservedFor());
            if (r != null) {
                dropReservation(cs, r);
            } else {
                n.reservedFor(null);
            }
        }
    }

    // ---------------------------------------------------------------- the pass context

    /** What one pass over one cluster knows; the policy's view of it. Caches per pass only. */
    private final class Pass implements PolicyContext {
        final ClusterState cs;
        final long t;
        private final HashMap<String, AccountUsage> usage;
        private HashMap<String, Integer> under;
        private final HashMap<String, PreemptionVerdict> verdicts = new HashMap<>();
        private List<Job> unprotected;

        Pass(ClusterState cs, long t) {
            this.cs = cs;
            this.t = t;
            this.usage = usageOf(cs, t);
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
            return cs.runningGpus.getOrDefault(account, 0);
        }

        @Override
        public int runningGpusUnder(String account) {
            if (under == null) {
                under = new HashMap<>();
                for (Map.Entry<String, Integer> e : cs.runningGpus.entrySet()) {
                    List<String> path = tree.path(e.getKey());
                    if (path.isEmpty()) {
                        under.merge(e.getKey(), e.getValue(), Integer::sum);
                    }
                    for (String a : path) {
                        under.merge(a, e.getValue(), Integer::sum);
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
        boolean preemptibleNow(Job r) {
            return r.mode == ChargeMode.UNALLOCATED || !policy.contractsProtect() || t >= r.protectedUntil;
        }

        PreemptionVerdict verdict(Job preemptor, Job victim) {
            String key = preemptor.account() + '\u0000' + victim.account();
            PreemptionVerdict v = verdicts.get(key);
            if (v == null) {
                v = policy.mayDisplace(preemptor, victim, this);
                verdicts.put(key, v);
            }
            return v;
        }

        /** May {@code preemptor} displace the allocated job {@code victim} once it is past protection? */
        boolean displaceable(Job preemptor, Job victim) {
            return !preemptor.account().equals(victim.account()) && verdict(preemptor, victim).allowed();
        }

        List<Candidate> candidatesFor(Job preemptor) {
            if (unprotected == null) {
                unprotected = new ArrayList<>();
                for (Job r : cs.running.values()) {
                    if (preemptibleNow(r)) {
                        unprotected.add(r);
                    }
                }
            }
            ArrayList<Candidate> out = new ArrayList<>();
            for (Job r : unprotected) {
                if (r.state != JobState.RUNNING || r.placedInPass == passCounter) {
                    continue; // displaced or placed during this pass
                }
                boolean allocated = r.mode == ChargeMode.ALLOCATED;
                if (allocated && !displaceable(preemptor, r)) {
                    continue;
                }
                TreeMap<String, Integer> byNode = new TreeMap<>();
                for (ReplicaPlacement rp : r.placement) {
                    byNode.merge(rp.nodeId(), rp.gpuIndices().size(), Integer::sum);
                }
                out.add(new Candidate(r.jobId(), allocated, r.gpus(), r.request.resumable(),
                        Math.max(0, t - r.lastCheckpoint), byNode));
            }
            return out;
        }
    }

    private HashMap<String, AccountUsage> usageOf(ClusterState cs, long t) {
        HashMap<String, AccountUsage> out = new HashMap<>();
        long from = ledger.windowStart(t);
        for (String root : tree.roots()) {
            rollUp(cs, root, from, t, out);
        }
        return out;
    }

    private double[] rollUp(ClusterState cs, String account, long from, long t, Map<String, AccountUsage> out) {
        double charged = ledger.charged(cs.name, account, t);
        double unallocated = ledger.unallocated(cs.name, account, t);
        for (String c : tree.children(account)) {
            double[] sub = rollUp(cs, c, from, t, out);
            charged += sub[0];
            unallocated += sub[1];
        }
        double entitled = cs.entitlement.entitledGpuSeconds(account, from, t);
        double fraction = tree.fraction(account);
        double ratio;
        if (charged == 0) {
            ratio = fraction > 0 ? 0 : Double.POSITIVE_INFINITY;
        } else {
            ratio = entitled > 0 ? charged / entitled : Double.POSITIVE_INFINITY;
        }
        out.put(account, new AccountUsage(account, cs.name, charged, unallocated, entitled, ratio, fraction));
        return new double[] {charged, unallocated};
    }

    // ---------------------------------------------------------------- queries

    public Optional<JobView> job(String jobId) {
        return Optional.ofNullable(jobs.get(jobId));
    }

    /** All jobs ever submitted, in submission order (live view). */
    public Collection<JobView> jobs() {
        return Collections.unmodifiableCollection(jobs.values());
    }

    /** Waiting jobs of a cluster in the order of the last pass (later arrivals at the end). */
    public List<JobView> waiting(String cluster) {
        ClusterState cs = clusters.get(cluster);
        if (cs == null) {
            return List.of();
        }
        ArrayList<Job> l = new ArrayList<>(cs.waiting.values());
        l.sort(Comparator.comparingInt((Job j) -> j.hold == Hold.NOT_YET_SCHEDULED ? Integer.MAX_VALUE : j.position)
                .thenComparingLong(j -> j.seq));
        return Collections.unmodifiableList(l);
    }

    public Optional<NodeView> node(String nodeId) {
        return Optional.ofNullable(nodeById.get(nodeId));
    }

    /** All nodes, sorted by id. */
    public Collection<NodeView> nodes() {
        TreeMap<String, NodeView> all = new TreeMap<>(nodeById);
        return Collections.unmodifiableCollection(all.values());
    }

    /** Clusters known (from nodes, jobs or usage), sorted. */
    public List<String> clusters() {
        return List.copyOf(clusters.keySet());
    }

    /** Current reservations of a cluster. */
    public List<Reservation> reservations(String cluster) {
        ClusterState cs = clusters.get(cluster);
        return cs == null ? List.of() : List.copyOf(cs.reservations);
    }

    public BudgetView budgets() {
        return tree;
    }

    /** Window usage, entitlement and ratio of an account on a cluster at the core's current time. */
    public AccountUsage usage(String cluster, String account) {
        ClusterState cs = clusters.get(cluster);
        if (cs == null) {
            return new AccountUsage(account, cluster, 0, 0, 0, 0, tree.fraction(account));
        }
        AccountUsage u = usageOf(cs, now).get(account);
        return u != null ? u : new AccountUsage(account, cluster, 0, 0, 0, Double.POSITIVE_INFINITY, 0);
    }

    /** Why a waiting job waits, as seen by the last pass. Empty if the job is not waiting. */
    public Optional<WaitingExplanation> explainWaiting(String jobId) {
        Job j = jobs.get(jobId);
        if (j == null || j.state != JobState.WAITING) {
            return Optional.empty();
        }
        ClusterState cs = clusters.get(j.cluster());
        if (j.hold == Hold.NOT_YET_SCHEDULED) {
            return Optional.of(new WaitingExplanation(jobId, j.cluster(), 0, j.hold, List.of(), "", null, -1,
                    "waiting for the next scheduling pass"));
        }
        List<AccountRatio> ahead = cs.lastRanking.aheadOf(j.account());
        StringBuilder b = new StringBuilder();
        b.append("position ").append(j.position).append(" on ").append(j.cluster()).append(": ");
        b.append(switch (j.hold) {
            case MISSING_RESOURCE -> "missing " + j.missing;
            case RESERVATION -> j.missing;
            case WAITING_FOR_RESERVATION -> "nodes are reserved for it: " + j.missing;
            case ADMISSION_LIMIT -> "held by the " + j.missing;
            case NO_SUCH_SHAPE -> "no such shape: needs " + j.missing;
            case NOT_YET_SCHEDULED -> "not yet scheduled";
        });
        if (!tree.exists(j.account())) {
            b.append("; account ").append(j.account()).append(" has no budget, its jobs rank last");
        } else if (!ahead.isEmpty()) {
            b.append("; accounts ranked ahead: ").append(ahead.stream().map(AccountRatio::toString)
                    .collect(Collectors.joining(", ")));
        }
        return Optional.of(new WaitingExplanation(jobId, j.cluster(), j.position, j.hold, ahead, j.missing,
                j.reservedFor, j.passAt, b.toString()));
    }

    /** Protected until when, or preemptible now. Empty if the job is not running. */
    public Optional<RunningExplanation> explainRunning(String jobId) {
        Job j = jobs.get(jobId);
        if (j == null || j.state != JobState.RUNNING) {
            return Optional.empty();
        }
        if (j.mode == ChargeMode.UNALLOCATED) {
            return Optional.of(new RunningExplanation(jobId, j.protectedUntil, true,
                    "unallocated: free and preemptible at any time by allocated work"));
        }
        if (!policy.contractsProtect()) {
            return Optional.of(new RunningExplanation(jobId, j.protectedUntil, true,
                    "policy " + policy.name() + " does not protect contracts"));
        }
        boolean preemptible = now >= j.protectedUntil;
        return Optional.of(new RunningExplanation(jobId, j.protectedUntil, preemptible, preemptible
                ? "past its protected window (ended " + Fmt.time(j.protectedUntil)
                        + "): preemptible by work of accounts ranking above its own by the margin"
                : "protected until " + Fmt.time(j.protectedUntil) + " (minimum runtime "
                        + Fmt.duration(j.request.minRuntimeMillis()) + ")"));
    }

    /** The core's current time (the latest time passed in). */
    public long nowMillis() {
        return now;
    }
}
