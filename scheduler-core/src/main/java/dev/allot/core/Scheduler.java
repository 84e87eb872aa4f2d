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
import dev.allot.core.reservation.Reservation;
import dev.allot.core.reservation.ReservationPlanner;
import dev.allot.core.usage.UsageLedger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
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
 *       jobs, (f) else record what holds it. Shortcuts that change no decision: an account none of
 *       whose jobs could do anything now (each shape already failed) is skipped whole, and the walk
 *       stops once nothing later in the order could ({@link SchedulerConfig#walkShortcuts()}).</li>
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
    /** Account name to a dense id, for array-indexed caches. */
    private final HashMap<String, Integer> accountIds = new HashMap<>();
    private long now = Long.MIN_VALUE;
    private long accountedUntil = Long.MIN_VALUE;
    private long passCounter;
    /** The policy keeps the default {@code admits} (every job): the walk may then skip whole accounts. */
    private final boolean admitsEveryJob;

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
        this.admitsEveryJob = keepsDefaultAdmission(policy);
    }

    private static boolean keepsDefaultAdmission(SchedulingPolicy policy) {
        try {
            return policy.getClass().getMethod("admits", JobView.class, PolicyContext.class).isDefault();
        } catch (NoSuchMethodException e) {
            return false;
        }
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
            cs = new ClusterState(name, policy.withinAccount());
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
            cs.availabilityChanged();
            capacityChanged(cs, t);
        } else if (n.lost()) {
            n.fence();
            cs.open.add(n);
            cs.availabilityChanged();
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
        cs.availabilityChanged();
        cs.open.remove(n);
        releaseDebugReserve(cs, n);
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
        ClusterState cs = clusters.get(n.cluster());
        cs.availabilityChanged();
        if (n.available() && !n.debugReserve()) {
            cs.open.add(n);
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
            List<ReplicaPlacement> held = j.placement;
            double lost = workLost(j, t);
            release(cs, j, t);
            toWaiting(cs, j, t, true);
            pending.add(new Decision.Requeue(jobId, j.account(), nodeId,
                    "node " + nodeId + " was lost; the job queues again with its submit time "
                            + Fmt.time(j.queuedSince), held, lost));
        }
        n.lose();
        cs.availabilityChanged();
        releaseDebugReserve(cs, n); // after lose(): a lost node must not return to the open set
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
        j.accountId = accountIds.computeIfAbsent(request.account(), a -> accountIds.size());
        j.debugShape = policy.hasDebugLane() && config.debugLane().hasDebugShape(request);
        jobs.put(request.jobId(), j);
        Optional<String> invalid = Contract.validate(request, config.maxMinRuntimeMillis());
        if (invalid.isPresent()) {
            j.state = JobState.REJECTED;
            j.rejection = invalid.get();
            pending.add(new Decision.Reject(request.jobId(), request.account(), invalid.get()));
            return;
        }
        ClusterState cs = cluster(request.cluster());
        cs.addWaiting(j);
        arrive(cs, j);
    }

    /** A job (re)joins the waiting set: the next pass merges it into its account's sorted list. */
    private static void arrive(ClusterState cs, Job j) {
        if (!j.arrived) {
            j.arrived = true;
            cs.arrivals.add(j);
        }
        j.listedIn = null;
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
    public void jobExited(long atMillis, String jobId) {
        Job j = jobs.get(jobId);
        if (j != null && j.state == JobState.RUNNING) {
            finish(atMillis, jobId);
        } else {
            t(atMillis);
        }
    }

    /** The job completed: it is finished and its GPUs are free. */
    public void jobFinished(long atMillis, String jobId) {
        jobExited(atMillis, jobId);
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
            cs.removeWaiting(j);
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
        cs.removeWaiting(j);
        cs.holdingsVersion++;
        cs.running.put(j.jobId(), j);
        j.state = JobState.RUNNING;
        j.placement = List.copyOf(replicas);
        j.placedAt = t;
        j.lastCheckpoint = t;
        j.protectedUntil = Contract.protectedUntil(t, j.request.minRuntimeMillis());
        j.placedInPass = passCounter;
        j.hold = Hold.NOT_YET_SCHEDULED;
        cs.preemptible.placed(cs, j, j.mode == ChargeMode.UNALLOCATED || !policy.contractsProtect());
        int g = j.gpus();
        cs.runningGpus.merge(j.account(), g, Integer::sum);
        int[] rate = cs.rates.computeIfAbsent(j.account(), a -> new int[2]);
        rate[j.mode == ChargeMode.ALLOCATED ? 0 : 1] += g;
        if (inLaneNow(cs, j)) {
            j.inLane = true;
            cs.laneGpus.merge(j.account(), g, Integer::sum);
        }
    }

    /** GPU-seconds a release at {@code t} throws away: since the last checkpoint, or the whole run if not resumable. */
    private static double workLost(Job j, long t) {
        long since = j.request.resumable() ? j.lastCheckpoint : j.placedAt;
        return since < 0 ? 0 : j.gpus() * Math.max(0, t - since) / 1000.0;
    }

    /** Frees the job's GPUs everywhere; leaves its state to the caller. */
    private void release(ClusterState cs, Job j, long t) {
        cs.preemptible.releasing(cs, j);
        for (ReplicaPlacement r : j.placement) {
            Node n = nodeById.get(r.nodeId());
            if (n != null && n.epoch() == r.nodeEpoch()) {
                n.release(j.jobId());
                cs.open.update(n);
            }
        }
        cs.running.remove(j.jobId());
        cs.holdingsVersion++;
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
        if (j.inLane) {
            j.inLane = false;
            if (cs.laneGpus.merge(j.account(), -g, Integer::sum) == 0) {
                cs.laneGpus.remove(j.account());
            }
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
        cs.addWaiting(j);
        arrive(cs, j);
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
                    List<ReplicaPlacement> held = j.placement;
                    double lost = workLost(j, t);
                    release(cs, j, t);
                    boolean keep = j.request.resumable();
                    toWaiting(cs, j, t, keep);
                    out.add(new Decision.ReleaseForDrain(jobId, j.account(), n.nodeId(), keep, why
                            + (keep ? "; requeued keeping its submit time" : "; requeued to restart from scratch"),
                            held, lost));
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
        holdDebugReserve(cs);
        // 3. ranking and order
        AccountRanking ranking = policy.rankAccounts(p);
        cs.lastRanking = ranking;
        PassOrder order = order(cs, ranking);
        cs.lastPassAt = t;
        cs.lastPassNo = passCounter;
        // 4. walk
        HashSet<String> confirmed = new HashSet<>();
        FailedShapes preemptionFailed = new FailedShapes();
        FailedShapes freeFailed = new FailedShapes();
        FailedShapes freeFailedBackfill = new FailedShapes();
        // the lane group is in rank order among itself, so its jobs share their own failure list
        FailedShapes lanePreemptionFailed = new FailedShapes();
        boolean settled = false; // once true it stays true: only blocked jobs ranked first move reservations
        // allocated jobs walked that stay waiting without their shape in preemptionFailed (lane jobs, jobs
        // that may not preempt or never got that far): the early stop need not wait for their shapes
        HashMap<Integer, TreeMap<Integer, Integer>> walkedNotFailed = new HashMap<>();
        int position = 0;
        int nextCheck = 1;
        HashMap<String, Map<Integer, TreeMap<Integer, Integer>>> laneWaiting = null;
        walk:
        for (int g = 0; g < order.groups.size(); g++) {
          List<Job> group = order.groups.get(g);
          String account = order.accountOf(g);
          if (account != null && admitsEveryJob && config.walkShortcuts()) {
              // An account none of whose jobs could do anything now (each would take the fast path
              // below) is skipped whole: its place in the order is counted, explainWaiting derives the rest.
              if (!settled) {
                  settled = reservationsSettled(cs, confirmed);
              }
              ClusterState.AccountWaiting w = cs.accountWaiting(account);
              if (settled && w != null) {
                  if (laneWaiting == null) {
                      laneWaiting = laneWaiting(order);
                  }
                  Map<Integer, TreeMap<Integer, Integer>> inLane = laneWaiting.getOrDefault(account, Map.of());
                  if (heldWhole(cs, p, w, group, inLane, preemptionFailed, freeFailed, freeFailedBackfill)) {
                      order.skip(g, position, cs.open.countsAtLeast());
                      position += w.listed - jobsIn(inLane);
                      continue;
                  }
              }
          }
          for (int idx = 0; idx < group.size(); idx++) {
            Job j = group.get(idx);
            if (!order.valid(j, g)) {
                continue; // placed or cancelled since the order was built
            }
            // Debug-lane jobs are walked out of rank order, so what they fail to find says nothing
            // about the jobs after them: they keep to their own preemption failure list.
            boolean lane = order.hasLane && g == 0;
            position++;
            if (position >= nextCheck) {
                nextCheck = position + 64;
                if (config.walkShortcuts() && hopeless(cs, p, preemptionFailed, walkedNotFailed, confirmed, lane)) {
                    // Nothing later in the order can change anything: no free GPU anywhere (that later jobs
                    // could use), a better-ranked job found nothing to displace, and every reservation is
                    // held. The rest wait for want of resources; explainWaiting derives their place.
                    order.restGroup = g;
                    order.restIndex = idx;
                    order.restPositionBase = position - 1;
                    break walk;
                }
            }
            j.position = position;
            j.passAt = t;
            j.passNo = passCounter;
            j.reservedFor = null;
            j.missing = "";
            int replicas = j.request.replicas();
            int gpus = j.request.gpusPerReplica();
            // Fast path: a better-ranked job of a shape no larger found no free GPUs (with the same
            // backfill rights) and nothing to displace, and reservations are settled: this job is
            // held the same way. Keeps a pass over 10,000 blocked jobs cheap.
            if (!settled && !lane) {
                settled = reservationsSettled(cs, confirmed);
            }
            boolean mayPreempt = mayPreempt(j, p);
            boolean notFailed = j.mode == ChargeMode.ALLOCATED && (lane || !mayPreempt);
            if (settled && !lane && !(j.mode == ChargeMode.UNALLOCATED && debugReserveFits(cs, gpus))
                    && (!mayPreempt || preemptionFailed.dominates(replicas, gpus))) {
                boolean plain = freeFailed.dominates(replicas, gpus);
                boolean withBackfill = cs.reservations.isEmpty() ? plain
                        : freeFailedBackfill.dominates(replicas, gpus);
                boolean held = plain && withBackfill;
                if (plain != withBackfill) {
                    held = mayBackfillAny(cs, p, j) ? withBackfill : plain;
                }
                if (held && policy.admits(j, p)) {
                    j.hold = Hold.MISSING_RESOURCE;
                    j.missing = null;
                    j.openNodesSeen = cs.open.countAtLeast(gpus);
                    if (notFailed) {
                        ClusterState.bump(walkedNotFailed, gpus, replicas, 1);
                    }
                    continue;
                }
            }
            // (a) shape
            int able = Math.min(cs.ableNodes(gpus), replicas);
            if (able < replicas) {
                j.hold = Hold.NO_SUCH_SHAPE;
                j.missing = replicas + " live nodes with at least " + gpus + " GPUs; cluster " + cs.name + " has "
                        + able;
                if (j.mode == ChargeMode.ALLOCATED) {
                    ClusterState.bump(walkedNotFailed, gpus, replicas, 1);
                }
                continue;
            }
            // (b) admission
            if (!policy.admits(j, p)) {
                j.hold = Hold.ADMISSION_LIMIT;
                j.missing = "admission limit of policy " + policy.name();
                if (j.mode == ChargeMode.ALLOCATED) {
                    ClusterState.bump(walkedNotFailed, gpus, replicas, 1);
                }
                continue;
            }
            Reservation own = cs.reservations.isEmpty() ? null : cs.reservationOf(j.jobId());
            // (c) free GPUs
            List<Node> fit = fitFree(cs, p, j, own);
            if (fit == null && own == null && !lane) {
                boolean bf = !cs.reservations.isEmpty() && mayBackfillAny(cs, p, j);
                (bf ? freeFailedBackfill : freeFailed).add(replicas, gpus);
            }
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
            FailedShapes failures = lane ? lanePreemptionFailed : preemptionFailed;
            if (mayPreempt && !failures.dominates(replicas, gpus)
                    && !probeFails(cs, p, j, failures)) {
                if (preempt(cs, p, j, own, position, ranking, out, replicas, gpus)) {
                    freeFailed.clear(); // victims may free more than the preemptor takes
                    freeFailedBackfill.clear();
                    continue;
                }
                failures.add(replicas, gpus);
            }
            if (notFailed) { // it stays waiting for the rest of the pass
                ClusterState.bump(walkedNotFailed, gpus, replicas, 1);
            }
            // (e) reservation (not for lane jobs: they are small, and out of rank order)
            if (!lane && policy.reservesForBlockedJobs() && reserve(cs, p, j, own, confirmed, out)) {
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
                j.missing = null; // worded on demand by explainWaiting
                j.openNodesSeen = openNodes;
            }
          }
        }
        // 5. reservations not confirmed by this pass
        for (Reservation r : List.copyOf(cs.reservations)) {
            if (!confirmed.contains(r.jobId())) {
                dropReservation(cs, r);
            }
        }
    }

    /**
     * The order of this pass. Re-sorting 10,000 jobs on every pass would dominate an incremental
     * decision, and Fair Tree ranks change whenever ratios cross. So each account keeps its waiting
     * jobs sorted by the within-account rule (arrivals inserted by binary search), and a pass only
     * sorts the accounts by rank and concatenates; accounts sharing a rank are merged by the
     * within-account rule (a flat policy's FIFO).
     */
    private PassOrder order(ClusterState cs, AccountRanking ranking) {
        Comparator<JobView> within = policy.withinAccount();
        if (cs.orderWithin != within) {
            cs.byAccount.clear();
            cs.arrivals.clear();
            for (Job j : cs.waiting.values()) {
                j.arrived = false;
                arrive(cs, j);
            }
            cs.unlistAll();
            cs.orderWithin = within;
        }
        // 1. merge arrivals into their account's list. Stale entries go on the first arrival of each
        // account (arrivals have listedIn == null, so they go too); later arrivals find none.
        Set<ArrayList<Job>> cleaned = Collections.newSetFromMap(new IdentityHashMap<>());
        for (Job j : cs.arrivals) {
            if (!j.arrived) {
                continue;
            }
            j.arrived = false;
            if (j.state != JobState.WAITING) {
                continue;
            }
            ArrayList<Job> list = cs.byAccount.computeIfAbsent(j.account(), k -> new ArrayList<>());
            if (cleaned.add(list)) {
                list.removeIf(o -> o.state != JobState.WAITING || o.listedIn != list || o == j);
            }
            int lo = 0;
            int hi = list.size();
            while (lo < hi) {
                int mid = (lo + hi) >>> 1;
                if (within.compare(list.get(mid), j) < 0) {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            list.add(lo, j);
            j.listedIn = list;
            cs.listed(j);
        }
        cs.arrivals.clear();
        // 2. accounts by rank (then name), concatenated; shared ranks merged
        ArrayList<Ranked> byName = new ArrayList<>(cs.byAccount.size());
        for (var it = cs.byAccount.entrySet().iterator(); it.hasNext();) {
            var e = it.next();
            ArrayList<Job> list = e.getValue();
            boolean any = false;
            for (Job j : list) {
                if (j.state == JobState.WAITING && j.listedIn == list) {
                    any = true;
                    break;
                }
            }
            if (!any) {
                it.remove();
                continue;
            }
            byName.add(new Ranked(e.getKey(), ranking.rankOf(e.getKey()), list));
        }
        // (rank, position in name order) packed in a long: sorting those sorts by rank, then name
        long[] keys = new long[byName.size()];
        for (int i = 0; i < keys.length; i++) {
            keys[i] = (long) byName.get(i).rank() << 32 | i;
        }
        Arrays.sort(keys);
        Ranked[] ranked = new Ranked[keys.length];
        for (int i = 0; i < keys.length; i++) {
            ranked[i] = byName.get((int) keys[i]);
        }
        PassOrder out = new PassOrder();
        debugLane(cs, ranked, out);
        for (int i = 0; i < ranked.length;) {
            int r = ranked[i].rank();
            int k = i;
            while (k < ranked.length && ranked[k].rank() == r) {
                k++;
            }
            if (k - i == 1) {
                out.add(ranked[i].jobs(), ranked[i].account());
            } else {
                ArrayList<Job> mergedGroup = new ArrayList<>();
                for (int x = i; x < k; x++) {
                    ArrayList<Job> list = ranked[x].jobs();
                    for (Job j : list) {
                        if (j.state == JobState.WAITING && j.listedIn == list) {
                            mergedGroup.add(j);
                        }
                    }
                }
                mergedGroup.sort(within);
                out.addMerged(mergedGroup);
            }
            i = k;
        }
        cs.order = out;
        return out;
    }

    /**
     * Whether every waiting job of the account would take the walk's fast path now: each shape
     * (the fewest replicas per GPU count decide) already failed to find free GPUs, with backfill
     * rights too while reservations stand, and to preempt; no unallocated one fits a held node.
     */
    private boolean heldWhole(ClusterState cs, Pass p, ClusterState.AccountWaiting w, List<Job> list,
            Map<Integer, TreeMap<Integer, Integer>> lane, FailedShapes preemptionFailed, FailedShapes freeFailed,
            FailedShapes freeFailedBackfill) {
        // cheapest first: its allocated shapes (lane jobs were walked already; only if they are in the way
        // is it worth counting them out), then unallocated ones, then backfill rights
        int[] allocated = w.fewestAllocated();
        if (!allocatedHeld(allocated, preemptionFailed, freeFailed)) {
            if (lane.isEmpty()) {
                return false;
            }
            allocated = ClusterState.fewest(w.allocated, lane);
            if (!allocatedHeld(allocated, preemptionFailed, freeFailed)) {
                return false;
            }
        }
        if (!w.unallocated.isEmpty() && debugReserveFits(cs, w.unallocated.firstKey())) {
            return false;
        }
        int[] unallocated = w.fewestUnallocated();
        if (cs.reservations.isEmpty()) {
            return freeFailed.dominatesAll(unallocated);
        }
        // Which of its jobs might backfill a reservation (see mayBackfill)? Those are held by the backfill
        // failures, the others by the plain ones; where it is not sure, both must hold.
        boolean allocatedBackfill = false;
        boolean unallocatedBackfill = false;
        boolean unallocatedAllBackfill = false; // a reservation of another account's job they all may use
        for (Reservation r : cs.reservations) {
            long left = r.dueAtMillis() - p.t;
            if (!w.durations.isEmpty() && w.durations.firstKey() <= left) {
                allocatedBackfill = unallocatedBackfill = true;
                break;
            }
            Job holder = p.holder(r);
            if (p.holderMayPreempt(holder)) {
                unallocatedBackfill = true;
                unallocatedAllBackfill |= holder.accountId != list.get(0).accountId;
                allocatedBackfill |= !w.minRuntimes.isEmpty()
                        && (!policy.contractsProtect() || w.minRuntimes.firstKey() <= left)
                        && p.displaceable(holder, list.get(0));
            }
        }
        return (!allocatedBackfill || freeFailedBackfill.dominatesAll(allocated))
                && (unallocatedAllBackfill || freeFailed.dominatesAll(unallocated))
                && (!unallocatedBackfill || freeFailedBackfill.dominatesAll(unallocated));
    }

    private boolean allocatedHeld(int[] fewest, FailedShapes preemptionFailed, FailedShapes freeFailed) {
        return (!policy.preempts() || preemptionFailed.dominatesAll(fewest)) && freeFailed.dominatesAll(fewest);
    }

    /**
     * Lane jobs still waiting, per account: they are in their accounts' lists too but were walked in
     * the lane, so skipping an account neither counts nor waits for them.
     */
    private static HashMap<String, Map<Integer, TreeMap<Integer, Integer>>> laneWaiting(PassOrder order) {
        HashMap<String, Map<Integer, TreeMap<Integer, Integer>>> out = new HashMap<>();
        if (order.hasLane) {
            for (Job j : order.groups.get(0)) {
                if (j.state == JobState.WAITING) {
                    ClusterState.bump(out.computeIfAbsent(j.account(), a -> new HashMap<>()),
                            j.request.gpusPerReplica(), j.request.replicas(), 1);
                }
            }
        }
        return out;
    }

    /** How many jobs a multiset of shapes (GPUs per replica to replica counts) holds. */
    private static int jobsIn(Map<Integer, TreeMap<Integer, Integer>> shapes) {
        int n = 0;
        for (TreeMap<Integer, Integer> byReplicas : shapes.values()) {
            for (int count : byReplicas.values()) {
                n += count;
            }
        }
        return n;
    }

    /** Whether the job is in the lane group of the current pass. */
    private static boolean inLaneNow(ClusterState cs, Job j) {
        return cs.order != null && j.laneOf == cs.order;
    }

    private static boolean mayUseDebugReserve(ClusterState cs, Job j) {
        return !cs.debugReserve.isEmpty() && (j.mode == ChargeMode.UNALLOCATED || inLaneNow(cs, j));
    }

    private static boolean debugReserveFits(ClusterState cs, int gpus) {
        return cs.heldMaxFree() >= gpus;
    }

    private static int heldNodesWithFree(ClusterState cs) {
        int n = 0;
        for (Node held : cs.debugReserve.values()) {
            if (held.freeGpus() > 0) {
                n++;
            }
        }
        return n;
    }

    /**
     * Debug lane rule 5: keeps {@code reserveNodes(live nodes)} nodes held for the lane. Nodes that
     * drained or were lost leave at once (see drainNode, nodeLost); a missing node is replaced by
     * the open node with the most GPUs free or held by lane and unallocated work, then the most
     * GPUs, then the highest id (low ids are packed first, so the reserve sits at the other end).
     */
    private void holdDebugReserve(ClusterState cs) {
        // as many whole nodes as the lane's demand needs plus one spare, kept until two above the need;
        // none until debug work first shows up (a cluster without any pays nothing for the lane)
        int demand = policy.hasDebugLane() ? laneDemandGpus(cs) : 0;
        if (demand == 0 && cs.debugReserve.isEmpty()) {
            return;
        }
        int live = cs.ableNodes(0);
        int widestNode = cs.widestAbleNode();
        int cap = policy.hasDebugLane() ? config.debugLane().reserveNodes(live) : 0;
        int target = Math.min(cap, 1 + ceilDiv(demand, Math.max(1, widestNode)));
        while (cs.debugReserve.size() > target + 1 || cs.debugReserve.size() > cap) {
            releaseDebugReserve(cs, cs.debugReserve.firstEntry().getValue());
        }
        while (cs.debugReserve.size() < target) {
            Node best = null;
            int bestUsable = -1;
            for (Node n : cs.nodes.values()) {
                if (!n.available() || n.debugReserve() || n.reservedFor() != null) {
                    continue;
                }
                int usable = n.freeGpus();
                for (Map.Entry<String, int[]> e : n.jobs().entrySet()) {
                    Job r = jobs.get(e.getKey());
                    if (r.mode == ChargeMode.UNALLOCATED || r.inLane) {
                        usable += e.getValue().length;
                    }
                }
                if (best == null || usable > bestUsable || (usable == bestUsable && n.gpus() >= best.gpus())) {
                    best = n; // nodes come in id order: on a full tie the later (higher) id wins
                    bestUsable = usable;
                }
            }
            if (best == null) {
                return;
            }
            best.debugReserve(true);
            cs.debugReserve.put(best.nodeId(), best);
            cs.holdingsVersion++;
            cs.open.remove(best);
        }
    }

    /** GPUs of running lane jobs plus, per account, the waiting debug-shape jobs that would join the lane. */
    private int laneDemandGpus(ClusterState cs) {
        int demand = 0;
        for (int g : cs.laneGpus.values()) {
            demand += g;
        }
        return demand + cs.debugShapedDemand(config.debugLane().gpusPerAccount());
    }

    private static int ceilDiv(int a, int b) {
        return (a + b - 1) / b;
    }

    private static void releaseDebugReserve(ClusterState cs, Node n) {
        if (cs.debugReserve.remove(n.nodeId()) != null) {
            cs.holdingsVersion++;
            n.debugReserve(false);
            if (n.available() && n.reservedFor() == null) {
                cs.open.add(n);
            }
        }
    }

    /** Debug lane rules 2 and 3 ({@link dev.allot.core.ordering.DebugLane}): group 0 of the order. */
    private void debugLane(ClusterState cs, Ranked[] ranked, PassOrder out) {
        if (!policy.hasDebugLane() || cs.debugShaped.isEmpty()) {
            return;
        }
        int bound = config.debugLane().gpusPerAccount();
        ArrayList<Job> lane = new ArrayList<>();
        // accounts in rank order (then name), each account's jobs in its own order: no sort needed
        for (Ranked r : ranked) {
            java.util.TreeSet<Job> candidates = cs.debugShaped.get(r.account());
            if (candidates == null) {
                continue;
            }
            int used = cs.laneGpus.getOrDefault(r.account(), 0);
            for (Job j : candidates) {
                if (j.listedIn == null) {
                    continue;
                }
                if (used + j.gpus() > bound) {
                    break;
                }
                used += j.gpus();
                j.laneOf = out;
                lane.add(j);
            }
        }
        if (!lane.isEmpty()) {
            out.addMerged(lane);
            out.hasLane = true;
        }
    }

    /** An account with waiting jobs, by rank then name (sorted once per pass). */
    private record Ranked(String account, int rank, ArrayList<Job> jobs) {
    }

    /**
     * Before a full victim search: can this job displace anything at all (one GPU)? If not, no
     * job ranked after it can either (their candidates are fewer), which is recorded as a (1 x 1)
     * failure and lets the rest of the pass skip preemption.
     */
    private boolean probeFails(ClusterState cs, Pass p, Job j, FailedShapes preemptionFailed) {
        if (preemptionFailed.dominates(1, 1)) {
            return true;
        }
        VictimSearch search = p.victims();
        if (search.nothingPreemptible() || !search.anyVictim(n -> eligibleFor(cs, p, j, n, 1),
                v -> p.displaceable(j, v))) {
            preemptionFailed.add(1, 1);
            return true;
        }
        return false;
    }

    private boolean eligibleFor(ClusterState cs, Pass p, Job j, Node n, int gpus) {
        if (!n.available() || n.gpus() < gpus) {
            return false;
        }
        if (n.debugReserve()) {
            return inLaneNow(cs, j);
        }
        String holder = n.reservedFor();
        return holder == null || holder.equals(j.jobId()) || mayBackfill(p, j, cs.reservationOf(holder));
    }

    private boolean mayBackfillAny(ClusterState cs, Pass p, Job j) {
        for (Reservation r : cs.reservations) {
            if (!r.jobId().equals(j.jobId()) && mayBackfill(p, j, r)) {
                return true;
            }
        }
        return false;
    }

    /** No reservation will be created or moved by a job further down this pass. */
    private boolean reservationsSettled(ClusterState cs, HashSet<String> confirmed) {
        if (!policy.reservesForBlockedJobs() || config.maxReservationsPerCluster() == 0) {
            return true;
        }
        if (cs.reservations.size() < config.maxReservationsPerCluster()) {
            return false;
        }
        for (Reservation r : cs.reservations) {
            if (!confirmed.contains(r.jobId())) {
                return false;
            }
        }
        return true;
    }

    /** Early stop of the walk: see step 4. */
    private boolean hopeless(ClusterState cs, Pass p, FailedShapes preemptionFailed,
            Map<Integer, TreeMap<Integer, Integer>> walkedNotFailed, HashSet<String> confirmed, boolean laneAhead) {
        // free GPUs on open nodes matter only if some waiting gang fits them by shape
        if (cs.open.freeGpus() > 0 && cs.anyWaitingFitsOpen()) {
            return false;
        }
        // held nodes: lane jobs may still land there, and past the lane group unallocated work that
        // fits on them alone (open nodes have no room left for any waiting job)
        int heldMaxFree = cs.heldMaxFree();
        if (heldMaxFree > 0 && (laneAhead || cs.unallocatedWaitingFits(heldMaxFree, heldNodesWithFree(cs)))) {
            return false;
        }
        for (Reservation r : cs.reservations) {
            if (!confirmed.contains(r.jobId())) {
                return false;
            }
            int free = 0;
            for (String id : r.nodeIds()) {
                free = Math.max(free, nodeById.get(id).freeGpus());
            }
            // free GPUs on reserved nodes matter only to jobs that may backfill them (conservatively, see
            // mayBackfill: jobs with a known duration; if the holder may preempt, unallocated jobs small
            // enough and jobs whose protection ends in time)
            Job holder = p.holder(r);
            if (free > 0 && cs.mayHaveBackfill(free, r.dueAtMillis() - p.t, p.holderMayPreempt(holder))) {
                return false;
            }
        }
        if (policy.reservesForBlockedJobs() && cs.reservations.size() < config.maxReservationsPerCluster()) {
            return false;
        }
        // every waiting job that may preempt has a shape that already failed to (or there is nothing to take)
        return !policy.preempts() || cs.allocatedWaitingDominatedBy(preemptionFailed, walkedNotFailed)
                || p.victims().nothingPreemptible();
    }

    /** Only allocated work preempts (the brief's rule), and only if the policy lets it. */
    private boolean mayPreempt(Job j, Pass p) {
        return j.mode == ChargeMode.ALLOCATED && policy.mayPreempt(j, p);
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
        if (j.inLane) {
            b.append("; debug lane: minimum runtime ").append(Fmt.duration(j.request.minRuntimeMillis()))
                    .append(" and ").append(j.gpus()).append(" GPUs, walked before the fair-share order (")
                    .append(config.debugLane().gpusPerAccount()).append(" GPUs per account at most)");
            return b.toString();
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
            // backfill nodes reserved for other jobs, and the debug lane's nodes
            ArrayList<Node> backfill = new ArrayList<>();
            if (mayUseDebugReserve(cs, j) && debugReserveFits(cs, gpus)) { // (else no held node has room)
                for (Node n : cs.debugReserve.values()) {
                    if (n.freeGpus() >= gpus) {
                        backfill.add(n);
                    }
                }
            }
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
        long expected = j.request.expectedDurationMillis();
        if (expected >= 0 && p.t + expected <= r.dueAtMillis()) {
            return true;
        }
        // the other two ways need the holder to be allowed to preempt: it is looked up last (asked
        // for nearly every job walked)
        boolean unallocated = j.mode == ChargeMode.UNALLOCATED;
        long unprotectedFrom = policy.contractsProtect() ? p.t + j.request.minRuntimeMillis() : p.t;
        if (!unallocated && unprotectedFrom > r.dueAtMillis()) {
            return false;
        }
        Job rj = p.holder(r);
        return p.holderMayPreempt(rj) && (unallocated || p.displaceable(rj, j));
    }

    /**
     * Tries to make room for {@code j} (shape replicas x gpus) by displacing others. With
     * {@code out == null} it only probes whether that is possible and changes nothing.
     */
    private boolean preempt(ClusterState cs, Pass p, Job j, Reservation own, int position, AccountRanking ranking,
            List<Decision> out, int replicas, int gpus) {
        VictimSearch search = p.victims();
        if (search.nothingPreemptible()) {
            return false;
        }
        HashMap<String, Boolean> backfillOk = new HashMap<>();
        boolean lane = inLaneNow(cs, j);
        VictimSearch.Eligibility eligible = n -> {
            if (!n.available() || n.gpus() < gpus) {
                return false;
            }
            if (n.debugReserve()) {
                return lane;
            }
            String holder = n.reservedFor();
            if (holder == null || holder.equals(j.jobId())) {
                return true;
            }
            return backfillOk.computeIfAbsent(holder, h -> mayBackfill(p, j, cs.reservationOf(h)));
        };
        VictimSearch.Selection sel = search.select(replicas, gpus, eligible, v -> p.displaceable(j, v));
        if (sel == null) {
            return false;
        }
        if (out == null) {
            return true;
        }
        long t = p.t;
        StringBuilder victims = new StringBuilder();
        for (Job v : sel.victims()) {
            PreemptionVerdict verdict = v.mode == ChargeMode.UNALLOCATED ? null : p.verdict(j, v);
            search.displaced(v);
            List<ReplicaPlacement> held = v.placement;
            double lost = workLost(v, t);
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
                    verdict == null ? Double.NaN : verdict.preemptorRatio(), keep, why, held, lost));
            victims.append(victims.isEmpty() ? "" : ",").append(v.jobId());
        }
        if (own != null) {
            dropReservation(cs, own);
        }
        place(cs, j, sel.nodes(), t);
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
            if (n.available() && n.reservedFor() == null && !n.debugReserve() && n.gpus() >= gpus) {
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
        boolean mayPreempt = mayPreempt(holder, p);
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
        private final HashMap<String, HashMap<String, PreemptionVerdict>> verdicts = new HashMap<>();
        private VictimSearch victims;

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
            HashMap<String, PreemptionVerdict> byVictim = verdicts.computeIfAbsent(preemptor.account(),
                    k -> new HashMap<>());
            PreemptionVerdict v = byVictim.get(victim.account());
            if (v == null) {
                v = policy.mayDisplace(preemptor, victim, this);
                byVictim.put(victim.account(), v);
            }
            return v;
        }

        /** May {@code preemptor} displace the allocated job {@code victim} once it is past protection? */
        boolean displaceable(Job preemptor, Job victim) {
            if (preemptor.accountId == victim.accountId) {
                return false;
            }
            byte[] allowed = allowedByPreemptor[preemptor.accountId];
            if (allowed == null) {
                allowed = new byte[allowedByPreemptor.length];
                allowedByPreemptor[preemptor.accountId] = allowed;
            }
            byte a = allowed[victim.accountId];
            if (a == 0) {
                a = policy.allowsDisplacing(preemptor, victim, this) ? (byte) 1 : (byte) 2;
                allowed[victim.accountId] = a;
            }
            return a == 1;
        }

        /**
         * Answers of the policy by preemptor and victim account id: 0 not asked yet, 1 allowed, 2 not
         * (the preemptor alternates with reservation holders: an array, not a one-entry memo).
         * Account ids are only given at submit, so none appears during the pass.
         */
        private final byte[][] allowedByPreemptor = new byte[accountIds.size()][];

        /** Reservation holders by job id: a small map, asked for every job walked while reservations stand. */
        private final HashMap<String, Job> holders = new HashMap<>();

        Job holder(Reservation r) {
            Job h = holders.get(r.jobId());
            if (h == null) {
                h = jobs.get(r.jobId());
                holders.put(r.jobId(), h);
            }
            return h;
        }

        /** {@link #mayPreempt} of a reservation holder, kept on the job for the pass (asked for every job walked). */
        boolean holderMayPreempt(Job holder) {
            if (holder.mayPreemptPass != passCounter) { // (a job is in one cluster: one Pass per counter)
                holder.mayPreemptPass = passCounter;
                holder.mayPreemptThen = mayPreempt(holder, this);
            }
            return holder.mayPreemptThen;
        }

        VictimSearch victims() {
            if (victims == null) {
                cs.preemptible.advanceTo(cs, t);
                victims = new VictimSearch(cs, t, passCounter);
            }
            return victims;
        }
    }

    private HashMap<String, AccountUsage> usageOf(ClusterState cs, long t) {
        HashMap<String, AccountUsage> out = HashMap.newHashMap(tree.size()); // (only looked up, never iterated)
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
        ArrayList<JobView> l = new ArrayList<>(cs.waiting.size());
        if (cs.order != null) {
            l.addAll(cs.order.jobs());
        }
        for (Job j : cs.waiting.values()) {
            if (j.listedIn == null) {
                l.add(j); // arrived after the last pass
            }
        }
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
        if (cs.order == null || j.listedIn == null) {
            return Optional.of(new WaitingExplanation(jobId, j.cluster(), 0, Hold.NOT_YET_SCHEDULED, List.of(), "",
                    null, -1, "waiting for the next scheduling pass"));
        }
        if (j.passNo != cs.lastPassNo) {
            // the last pass skipped this job's account or stopped walking before it (step 4): derive
            // what the walk would have recorded
            PassOrder.Skip skip = cs.order.skipOf(j);
            j.passNo = cs.lastPassNo;
            j.passAt = cs.lastPassAt;
            j.hold = Hold.MISSING_RESOURCE;
            j.reservedFor = null;
            if (skip != null) {
                j.position = cs.order.positionIn(skip, j);
                j.missing = null;
                j.openNodesSeen = skip.openNodes(j.request.gpusPerReplica());
            } else {
                j.position = cs.order.positionAfterStop(j);
                j.missing = j.request.replicas() + " nodes with " + j.request.gpusPerReplica()
                        + " free GPUs; no GPU is free and jobs ranked ahead found nothing they may preempt";
            }
        }
        List<AccountRatio> ahead = cs.lastRanking.aheadOf(j.account());
        StringBuilder b = new StringBuilder();
        b.append("position ").append(j.position).append(" on ").append(j.cluster()).append(": ");
        String missing = j.missing != null ? j.missing
                : j.request.replicas() + " nodes with " + j.request.gpusPerReplica() + " free GPUs; " + j.openNodesSeen
                        + " such nodes free and nothing it may preempt";
        b.append(switch (j.hold) {
            case MISSING_RESOURCE -> "missing " + missing;
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
        return Optional.of(new WaitingExplanation(jobId, j.cluster(), j.position, j.hold, ahead, missing,
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

    /**
     * Drops finished and rejected jobs from memory (long simulations submit millions). After this,
     * {@link #job} no longer finds them and a resubmission of the same id is accepted as new.
     * Returns how many were dropped.
     */
    public int forgetFinished() {
        int before = jobs.size();
        jobs.values().removeIf(j -> j.state == JobState.FINISHED || j.state == JobState.REJECTED);
        return before - jobs.size();
    }

    /** The core's current time (the latest time passed in). */
    public long nowMillis() {
        return now;
    }
}
