package dev.allot.core;

import dev.allot.core.budget.BudgetTree;
import dev.allot.core.cluster.Node;
import dev.allot.core.contract.Contract;
import dev.allot.core.explain.AccountUsage;
import dev.allot.core.explain.Explainer;
import dev.allot.core.explain.ReasonFormat;
import dev.allot.core.explain.RunningExplanation;
import dev.allot.core.explain.WaitingExplanation;
import dev.allot.core.pass.ClusterPass;
import dev.allot.core.pass.PassContext;
import dev.allot.core.policy.BudgetPolicy;
import dev.allot.core.policy.BudgetView;
import dev.allot.core.policy.SchedulingPolicy;
import dev.allot.core.reservation.Reservation;
import dev.allot.core.state.ClusterState;
import dev.allot.core.state.Job;
import dev.allot.core.state.Jobs;
import dev.allot.core.usage.UsageLedger;
import dev.allot.core.usage.WindowUsage;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The scheduling core's facade and its cycle. Single-threaded: one caller applies events and runs
 * passes in order. Time is always passed in as epoch milliseconds; the core never reads a clock.
 *
 * <p>Events ({@code submit}, {@code cancel}, {@code defineBudget}, {@code registerNode}, ...) change
 * state; {@link #schedule(long)} runs one pass per cluster ({@link ClusterPass}) and returns the
 * decisions in the order to carry them out. Decisions taken by the core (placements, preemptions,
 * releases) are already applied to the core's state when returned: the caller does not feed them
 * back. Events reported by nodes ({@link #jobStarted}, {@link #jobFinished}, ...) are facts the
 * core records.
 *
 * <p>Time never goes back: an event stamped before the latest time seen is applied at the latest
 * time seen.
 *
 * <p>Determinism: the same calls with the same arguments in the same order give the same
 * decisions (all internal iteration that reaches a decision is over sorted or insertion-ordered
 * structures; hash maps are used for lookups only).
 */
public final class Scheduler {

    private final SchedulerConfig config;
    private final SchedulingPolicy policy;
    final BudgetTree tree = new BudgetTree();
    final UsageLedger ledger;
    final TreeMap<String, ClusterState> clusters = new TreeMap<>();
    final HashMap<String, Node> nodeById = new HashMap<>();
    final Jobs jobs = new Jobs();
    /** Decisions taken between passes (rejections, requeues after node loss), reported by the next one. */
    private final ArrayList<Decision> pending = new ArrayList<>();
    long now = Long.MIN_VALUE;
    long accountedUntil = Long.MIN_VALUE;
    long passCounter;
    private boolean reasons = true;

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

    /**
     * An independent copy of this core (budgets, usage window, entitlement history, nodes, running
     * and waiting jobs, reservations, no-thrash guard) with another config and policy: what a forward
     * run on a virtual clock starts from. See {@link SchedulerCopy}. This core is not changed.
     */
    public Scheduler copy(SchedulerConfig copyConfig, SchedulingPolicy copyPolicy) {
        return SchedulerCopy.of(this, copyConfig, copyPolicy);
    }

    /** {@link #copy(SchedulerConfig, SchedulingPolicy)} with this core's config and policy. */
    public Scheduler copy() {
        return copy(config, policy);
    }

    /**
     * Off, placements and preemptions carry an empty reason: a forward run on a copy reads only
     * where and when jobs start, and writing the sentences was about a twentieth of its cost. On by
     * default; the decisions are the same either way.
     */
    public void writeReasons(boolean on) {
        reasons = on;
    }

    // ---------------------------------------------------------------- time

    /** Moves time to max(now, at), charging running jobs up to it first; returns the core's time. */
    private long advance(long atMillis) {
        if (atMillis > now) {
            now = atMillis;
        }
        accrue(now);
        return now;
    }

    /** With {@link UsageFeed#RUNNING_JOBS}, charges what ran since the last accrual up to {@code to}. */
    private void accrue(long to) {
        if (accountedUntil != Long.MIN_VALUE && to > accountedUntil && config.usageFeed() == UsageFeed.RUNNING_JOBS) {
            for (ClusterState cs : clusters.values()) {
                for (Map.Entry<String, int[]> e : cs.rates().entrySet()) {
                    charge(cs, e.getKey(), e.getValue(), accountedUntil, to);
                }
            }
        }
        accountedUntil = Math.max(accountedUntil, to);
    }

    /**
     * Moves the core's time to {@code nowMillis}: with {@link UsageFeed#RUNNING_JOBS} running jobs
     * are charged up to now. {@link #schedule} calls this itself. Time never goes back: earlier
     * values are ignored.
     */
    public void advanceTo(long nowMillis) {
        advance(nowMillis);
    }

    /** The core's current time (the latest time passed in). */
    public long nowMillis() {
        return now;
    }

    // ---------------------------------------------------------------- budgets

    /**
     * Defines or changes an account: its parent (null for a root) and its share among siblings.
     * Applies from {@code atMillis} on. An unknown parent is created as a root with share 1.
     *
     * @throws IllegalArgumentException for a negative share or a change that would make a cycle
     */
    public void defineBudget(long atMillis, String account, String parent, double share) {
        defineBudget(atMillis, account, parent, share, atMillis);
    }

    /**
     * As {@link #defineBudget(long, String, String, double)}, for an account first defined at
     * {@code createdAtMillis} (a service rebuilding from the log, where a re-shared account's record
     * says when it was created): it is owed from then on, at most a window back.
     */
    public void defineBudget(long atMillis, String account, String parent, double share, long createdAtMillis) {
        advance(atMillis);
        tree.define(account, parent, share, createdAtMillis);
    }

    /** Removes an account and its subtree from {@code atMillis} on. Their waiting jobs rank last. */
    public void removeBudget(long atMillis, String account) {
        advance(atMillis);
        tree.remove(account);
    }

    /** Usage reported for an interval (service feed; the simulator may use it too). */
    public void recordUsage(UsageRecord usage) {
        advance(usage.endMillis());
        cluster(usage.cluster());
        ledger.add(usage.cluster(), usage.account(), usage.startMillis(), usage.endMillis(), usage.gpuSeconds(),
                usage.charged());
    }

    ClusterState cluster(String name) {
        ClusterState cs = clusters.get(name);
        if (cs == null) {
            cs = new ClusterState(name, policy.withinAccount());
            clusters.put(name, cs);
        }
        return cs;
    }

    // ---------------------------------------------------------------- nodes

    /**
     * A node registers. A new node starts at epoch 1; a node registering again after it was lost
     * is fenced: it gets a new epoch and starts empty (its stale jobs are to be killed by the
     * caller). A live node registering again keeps its state. Returns the node's epoch.
     */
    public long registerNode(long atMillis, NodeSpec spec) {
        long t = advance(atMillis);
        ClusterState cs = cluster(spec.cluster());
        Node n = nodeById.get(spec.nodeId());
        if (n == null) {
            n = new Node(spec);
            nodeById.put(spec.nodeId(), n);
            cs.nodeJoined(n);
        } else if (n.lost()) {
            cs.nodeBack(n);
        } else {
            return n.epoch(); // a live node registering again keeps its state
        }
        return n.epoch();
    }

    /** Stop placing work on the node; its jobs are released as their contracts allow. */
    public void drainNode(long atMillis, String nodeId) {
        advance(atMillis);
        Node n = nodeById.get(nodeId);
        if (n != null && !n.draining()) {
            clusters.get(n.cluster()).drain(n);
        }
    }

    /** The node takes work again. */
    public void undrainNode(long atMillis, String nodeId) {
        advance(atMillis);
        Node n = nodeById.get(nodeId);
        if (n != null && n.draining()) {
            clusters.get(n.cluster()).undrain(n);
        }
    }

    /**
     * The node has been silent for a while (not yet long enough to be lost): no new work goes there, since it
     * may be lost next and work placed there would be lost with it; its jobs run on. Ignored for a lost node.
     */
    public void nodeUnreachable(long atMillis, String nodeId) {
        advance(atMillis);
        Node n = nodeById.get(nodeId);
        if (n != null && !n.lost() && !n.unreachable()) {
            clusters.get(n.cluster()).unreachable(n);
        }
    }

    /** A silent node is heard from again: it takes work again. */
    public void nodeReachable(long atMillis, String nodeId) {
        advance(atMillis);
        Node n = nodeById.get(nodeId);
        if (n != null && !n.lost() && n.unreachable()) {
            clusters.get(n.cluster()).reachable(n);
        }
    }

    /**
     * The node missed its heartbeats: every job with a replica on it goes back to waiting (a
     * {@link Decision.Requeue} is emitted by the next pass, keeping the job's submit time) and its
     * capacity leaves the cluster.
     */
    public void nodeLost(long atMillis, String nodeId) {
        long t = advance(atMillis);
        Node n = nodeById.get(nodeId);
        if (n == null || n.lost()) {
            return;
        }
        ClusterState cs = clusters.get(n.cluster());
        for (ClusterState.Requeued r : cs.lose(n, t)) {
            Job j = r.job();
            pending.add(new Decision.Requeue(j.jobId(), j.account(), nodeId,
                    "node " + nodeId + " was lost; the job queues again with its submit time "
                            + ReasonFormat.time(j.queuedSinceMillis()), r.released().placement(),
                    r.released().lostGpuSeconds()));
        }
    }

    // ---------------------------------------------------------------- jobs

    /**
     * A job is submitted. Invalid jobs (minimum runtime out of 0..max, no replicas, no GPUs) are
     * rejected by the next pass with a reason. A job id seen before is ignored (idempotent replay).
     * An account without a budget is not a reason: its jobs wait, ranked last.
     */
    public void submit(long atMillis, JobRequest request) {
        advance(atMillis);
        if (jobs.contains(request.jobId())) {
            return;
        }
        Job j = new Job(request, jobs.nextSeq(), jobs.accountId(request.account()),
                policy.hasDebugLane() && config.debugLane().hasDebugShape(request));
        jobs.add(j);
        Optional<String> invalid = Contract.validate(request, config.maxMinRuntimeMillis());
        if (invalid.isPresent()) {
            j.reject();
            pending.add(new Decision.Reject(request.jobId(), request.account(), invalid.get()));
            return;
        }
        cluster(request.cluster()).arrive(j);
    }

    /** The job is withdrawn: waiting jobs finish at once, running jobs release their GPUs. */
    public void cancel(long atMillis, String jobId) {
        finish(atMillis, jobId);
    }

    /** The node agent started the job (fact; the core already counts it running from its placement). */
    public void jobStarted(long atMillis, String jobId) {
        advance(atMillis);
    }

    /** The job wrote a checkpoint: work since then is what a preemption would lose. */
    public void jobCheckpointed(long atMillis, String jobId) {
        long t = advance(atMillis);
        Job j = jobs.get(jobId);
        if (j != null) {
            j.checkpointed(t);
        }
    }

    /**
     * The job's process exited (any exit code): it is finished and its GPUs are free. An exit
     * reported for a job that is not running (e.g. after it was preempted) is ignored.
     */
    public void jobExited(long atMillis, String jobId) {
        Job j = jobs.get(jobId);
        if (j != null && j.running()) {
            finish(atMillis, jobId);
        } else {
            advance(atMillis);
        }
    }

    /** The job completed: it is finished and its GPUs are free. */
    public void jobFinished(long atMillis, String jobId) {
        jobExited(atMillis, jobId);
    }

    /** A job's end at a time, for {@link #jobsFinished}. */
    public record JobEnd(long atMillis, String jobId) {
    }

    /**
     * Jobs finished, each at its own time (in time order): what {@link #jobFinished} for each in
     * turn does, but with {@link UsageFeed#RUNNING_JOBS} running work is charged account by account
     * between its own account's ends (its rate changes only there) and once for everyone at the
     * last end, rather than every account at every end: a forward run reports hundreds of ends at
     * a time. The charges are the same integrals, summed in other pieces.
     */
    public void jobsFinished(List<JobEnd> ends) {
        if (config.usageFeed() != UsageFeed.RUNNING_JOBS || ends.isEmpty()) {
            for (JobEnd e : ends) {
                jobFinished(e.atMillis(), e.jobId());
            }
            return;
        }
        advance(ends.get(0).atMillis());
        long from = accountedUntil;
        // per cluster and account: charged up to this time already (the accounts whose jobs ended)
        HashMap<ClusterState, HashMap<String, Long>> chargedUntil = new HashMap<>();
        for (JobEnd e : ends) {
            Job j = jobs.get(e.jobId());
            now = Math.max(now, e.atMillis());
            if (j == null || !j.running()) {
                continue;
            }
            ClusterState cs = clusters.get(j.cluster());
            HashMap<String, Long> until = chargedUntil.computeIfAbsent(cs, c -> new HashMap<>());
            charge(cs, j.account(), cs.rates().get(j.account()), until.getOrDefault(j.account(), from), now);
            until.put(j.account(), now);
            cs.finish(j, now);
        }
        for (ClusterState cs : clusters.values()) {
            HashMap<String, Long> until = chargedUntil.getOrDefault(cs, new HashMap<>());
            for (Map.Entry<String, int[]> e : cs.rates().entrySet()) {
                charge(cs, e.getKey(), e.getValue(), until.getOrDefault(e.getKey(), from), now);
            }
        }
        accountedUntil = Math.max(accountedUntil, now);
    }

    /** Charges the account's running GPUs on the cluster ({@code r}: allocated, unallocated) from {@code from} to {@code to}. */
    private void charge(ClusterState cs, String account, int[] r, long from, long to) {
        if (r == null || to <= from || from == Long.MIN_VALUE) {
            return;
        }
        double seconds = (to - from) / 1000.0;
        if (r[0] > 0) {
            ledger.add(cs.name, account, from, to, r[0] * seconds, true);
        }
        if (r[1] > 0) {
            ledger.add(cs.name, account, from, to, r[1] * seconds, false);
        }
    }

    private void finish(long atMillis, String jobId) {
        long t = advance(atMillis);
        Job j = jobs.get(jobId);
        if (j != null) {
            clusters.get(j.cluster()).finish(j, t);
        }
    }

    // ---------------------------------------------------------------- recovery

    /**
     * Restores a job as it stood in an earlier process (a service rebuilding from the log): it
     * waits with its queue time and requeue count, or runs on exactly the nodes and GPU indices it
     * was given, from its placement time, with its last checkpoint. Nothing is decided about it
     * until the next pass, which treats it like any job that arrived or was placed so. Restore jobs
     * in the order they were first submitted (it is the tie-break among equal protected windows),
     * after their budgets and nodes.
     *
     * @throws IllegalArgumentException for a job id the core knows, or a request the contract refuses
     * @throws IllegalStateException for a placement on an unknown or lost node, or on GPUs not free
     *     (two jobs never share a GPU); the core is left as it was
     */
    public void restore(long atMillis, RestoredJob restored) {
        advance(atMillis);
        JobRequest request = restored.request();
        if (jobs.contains(request.jobId())) {
            throw new IllegalArgumentException("job " + request.jobId() + " is known already");
        }
        Optional<String> invalid = Contract.validate(request, config.maxMinRuntimeMillis());
        if (invalid.isPresent()) {
            throw new IllegalArgumentException("job " + request.jobId() + ": " + invalid.get());
        }
        ClusterState cs = cluster(request.cluster());
        ArrayList<Node> nodes = new ArrayList<>(restored.placement().size());
        ArrayList<List<Integer>> gpus = new ArrayList<>(restored.placement().size());
        for (ReplicaPlacement r : restored.placement()) {
            Node n = cs.node(r.nodeId());
            if (n == null) {
                throw new IllegalStateException("job " + request.jobId() + ": node " + r.nodeId()
                        + " is not registered in cluster " + request.cluster());
            }
            nodes.add(n);
            gpus.add(r.gpuIndices());
        }
        Job j = new Job(request, jobs.nextSeq(), jobs.accountId(request.account()),
                policy.hasDebugLane() && config.debugLane().hasDebugShape(request));
        if (restored.running()) {
            cs.restoreRunning(j, nodes, gpus, restored.placedAtMillis(), restored.lastCheckpointMillis(),
                    restored.queuedSinceMillis(), restored.requeues(), j.unallocated() || !policy.contractsProtect(),
                    restored.debugLane() && j.debugShape());
        } else {
            cs.restoreWaiting(j, restored.queuedSinceMillis(), restored.requeues());
        }
        jobs.add(j);
    }

    /**
     * A core rebuilt from the log: the draining node's {@link Decision.NodeDrained} was reported
     * already (it is in the log), so the next pass does not report it again.
     */
    public void restoreDrainReported(String nodeId) {
        Node n = nodeById.get(nodeId);
        if (n != null && n.draining()) {
            n.markDrainedReported();
        }
    }

    // ---------------------------------------------------------------- the cycle

    /** Runs one scheduling pass over every cluster (sorted by name) and returns its decisions in order. */
    public List<Decision> schedule(long nowMillis) {
        long t = advance(nowMillis);
        passCounter++;
        ArrayList<Decision> out = new ArrayList<>(pending);
        pending.clear();
        boolean admitsEveryJob = !policy.limitsAdmission();
        for (ClusterState cs : clusters.values()) {
            PassContext p = new PassContext(cs, t, passCounter, config, policy, tree, ledger, jobs, reasons);
            ClusterPass.run(p, out, admitsEveryJob);
        }
        return out;
    }

    // ---------------------------------------------------------------- queries

    public Optional<JobView> job(String jobId) {
        return Optional.ofNullable(jobs.get(jobId));
    }

    /** All jobs ever submitted, in submission order (live view). */
    public Collection<JobView> jobs() {
        return Collections.unmodifiableCollection(jobs.all());
    }

    /** Waiting jobs of a cluster in the order of the last pass (later arrivals at the end). */
    public List<JobView> waiting(String cluster) {
        ClusterState cs = clusters.get(cluster);
        if (cs == null) {
            return List.of();
        }
        ArrayList<JobView> l = new ArrayList<>(cs.waitingCount());
        if (cs.order() != null) {
            l.addAll(cs.order().jobs());
        }
        for (Job j : cs.waitingJobs()) {
            if (j.listedIn() == null) {
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
        return cs == null ? List.of() : List.copyOf(cs.reservations.all());
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
        AccountUsage u = WindowUsage.of(cs.name, tree, ledger, cs.registeredGpus(), now).get(account);
        return u != null ? u : new AccountUsage(account, cluster, 0, 0, 0, Double.POSITIVE_INFINITY, 0);
    }

    /** Every account's window usage, entitlement and ratio on a cluster, by account name (sorted). */
    public SortedMap<String, AccountUsage> usage(String cluster) {
        ClusterState cs = clusters.get(cluster);
        return cs == null ? Collections.emptySortedMap()
                : Collections.unmodifiableSortedMap(new TreeMap<>(WindowUsage.of(cs.name, tree, ledger, cs.registeredGpus(), now)));
    }

    /** Why a waiting job waits, as seen by the last pass. Empty if the job is not waiting. Changes nothing. */
    public Optional<WaitingExplanation> explainWaiting(String jobId) {
        Job j = jobs.get(jobId);
        if (j == null || !j.waiting()) {
            return Optional.empty();
        }
        return Optional.of(Explainer.waiting(j, clusters.get(j.cluster()), tree));
    }

    /** Protected until when, or preemptible now. Empty if the job is not running. Changes nothing. */
    public Optional<RunningExplanation> explainRunning(String jobId) {
        Job j = jobs.get(jobId);
        if (j == null || !j.running()) {
            return Optional.empty();
        }
        return Optional.of(Explainer.running(j, policy, now));
    }

    /**
     * Drops finished and rejected jobs from memory (long simulations submit millions). After this,
     * {@link #job} no longer finds them and a resubmission of the same id is accepted as new.
     * Returns how many were dropped.
     */
    public int forgetFinished() {
        return jobs.forgetFinished();
    }
}
