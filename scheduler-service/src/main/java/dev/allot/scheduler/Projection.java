package dev.allot.scheduler;

import dev.allot.core.ChargeMode;
import dev.allot.core.Decision;
import dev.allot.core.JobRequest;
import dev.allot.core.JobView;
import dev.allot.core.NodeSpec;
import dev.allot.core.NodeView;
import dev.allot.core.ReplicaPlacement;
import dev.allot.core.Scheduler;
import dev.allot.core.SchedulerConfig;
import dev.allot.core.UsageFeed;
import dev.allot.core.UsageRecord;
import dev.allot.core.estimate.LearnedRunTimes;
import dev.allot.core.estimate.RunTimeModel;
import dev.allot.core.explain.AccountUsage;
import dev.allot.core.policy.BudgetView;
import dev.allot.schemas.JobState;
import dev.allot.schemas.QueueSnapshot;
import dev.allot.schemas.StopReason;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.Executor;
import java.util.function.LongConsumer;
import org.jboss.logging.Logger;

/**
 * The scheduler's state for one cluster: the scheduling core, plus what only the edge knows (each
 * job's {@link EdgeJob}, node liveness in {@link NodeLiveness}). Inputs come in as {@link Input}s and
 * are applied to the core; what follows goes out as {@link Output}s built by the
 * {@link DecisionWriter}. No Kafka here: the loop makes a step one transaction.
 *
 * <p>Single-threaded, like the core. Every method that changes state is driven only by its
 * arguments (time included); after a restart {@link LogRestore} rebuilds it from the log ({@link #restore}).
 */
public final class Projection {

    private static final Logger LOG = Logger.getLogger(Projection.class);

    /** How many completed runs the run-time model was fed, and their total length (rebuilt from the log after a restart). */
    public record Learned(long runs, long totalMillis) {
    }

    /** Counts of what the last pass decided, for metrics. */
    public record PassResult(int decisions, Map<String, Integer> byKind) {
    }

    private final String cluster;
    private final Scheduler core;
    private final boolean usageFromAccounting;
    private final SubmissionRules rules;
    private final NodeLiveness liveness;
    private final DecisionWriter writer;
    private final Map<String, EdgeJob> jobs = new HashMap<>();
    /** Jobs with a run the edge started and has not ended, in the order they were placed. */
    private final LinkedHashSet<String> running = new LinkedHashSet<>();
    /** Run times of completed jobs (the team's, per shape), for the expected starts. */
    private final LearnedRunTimes runTimes;
    private final StartEstimates estimates;
    private long learnedRuns;
    private long learnedMillis;

    public Projection(Settings settings) {
        this.cluster = settings.cluster();
        this.usageFromAccounting = !"running-jobs".equals(settings.usageFeed());
        SchedulerConfig config = settings.preemption().applyTo(SchedulerConfig.defaults())
                .withUsageFeed(usageFromAccounting ? UsageFeed.USAGE_RECORDS : UsageFeed.RUNNING_JOBS);
        this.core = new Scheduler(config, settings.preemption().policy());
        this.rules = new SubmissionRules(cluster, config.maxMinRuntimeMillis());
        this.liveness = new NodeLiveness(settings.lostAfter().toMillis());
        this.writer = new DecisionWriter(cluster, settings.stopGraceSeconds(), new Facts());
        this.runTimes = new LearnedRunTimes(settings.estimates().defaultRunTime().toMillis());
        this.estimates = new StartEstimates(runTimes, settings.estimates());
    }

    public String cluster() {
        return cluster;
    }

    /** The core, for read-only questions (tests, status). */
    public Scheduler core() {
        return core;
    }

    public boolean knowsJob(String jobId) {
        return jobs.containsKey(jobId);
    }

    public int runningCount() {
        return running.size();
    }

    public int waitingCount() {
        return core.waiting(cluster).size();
    }

    public int nodeCount() {
        return liveness.nodeCount();
    }

    /** Jobs running now, with their placements (node, epoch, GPU indices), in the order they were placed. */
    public Map<String, List<ReplicaPlacement>> runningPlacements() {
        Map<String, List<ReplicaPlacement>> out = new LinkedHashMap<>();
        for (String jobId : running) {
            out.put(jobId, core.job(jobId).map(JobView::placement).orElse(List.of()));
        }
        return out;
    }

    /** The job's state as its events say: the edge's verdict if it wrote one, else the core's state. */
    public JobState stateOf(String jobId) {
        EdgeJob j = jobs.get(jobId);
        if (j == null) {
            return null;
        }
        if (j.verdict != null) {
            return j.verdict;
        }
        return core.job(jobId).map(v -> switch (v.state()) {
            case WAITING -> JobState.WAITING;
            case RUNNING -> JobState.RUNNING;
            // FINISHED is not reached: the edge writes a verdict before it finishes a job
            case REJECTED, FINISHED -> JobState.REJECTED;
        }).orElse(JobState.REJECTED); // a submission the core refused by an exception

    }

    // ------------------------------------------------------------------ inputs

    /**
     * Applies one input; what follows from it directly (verdicts, stops) goes to {@code out}. An
     * input the core refuses (an exception) is logged and counted all the same: a rebuild meets the
     * same refusal at the same point.
     *
     * @return the inputs that changed the scheduler's state: the input itself, but for a heartbeat
     *     only the registration of a lost node it brings back, or itself when it makes an unreachable
     *     node reachable again
     */
    public List<Input> apply(Input input, List<Output> out) {
        try {
            switch (input) {
                case Input.Heartbeat h -> {
                    return heartbeat(h, out);
                }
                case Input.Submit s -> submit(s, out);
                case Input.Cancel c -> cancel(c, out);
                case Input.DefineBudget b -> core.defineBudget(b.at(), b.path(), b.parent(), b.share(), b.createdAt());
                case Input.RemoveBudget b -> core.removeBudget(b.at(), b.path());
                case Input.RegisterNode n -> registerNode(n);
                case Input.NodeLost n -> {
                    if (liveInCore(n.nodeId())) {
                        core.nodeLost(n.at(), n.nodeId());
                    }
                }
                case Input.NodeUnreachable n -> core.nodeUnreachable(n.at(), n.nodeId());
                case Input.Drain d -> {
                    if (liveness.knows(d.nodeId())) {
                        core.drainNode(d.at(), d.nodeId());
                    }
                }
                case Input.Undrain u -> {
                    if (liveness.knows(u.nodeId())) {
                        core.undrainNode(u.at(), u.nodeId());
                    }
                }
                case Input.Started s -> {
                    if (runsThere(s.jobId(), s.nodeId())) {
                        core.jobStarted(s.at(), s.jobId());
                    }
                }
                case Input.Checkpointed c -> {
                    if (runsThere(c.jobId(), c.nodeId())) {
                        core.jobCheckpointed(c.at(), c.jobId());
                    }
                }
                case Input.Exited e -> exited(e, out);
                case Input.Usage u -> usage(u);
            }
        } catch (RuntimeException e) {
            LOG.errorf(e, "input refused by the projection: %s", input);
            return input instanceof Input.Heartbeat ? List.of() : List.of(input);
        }
        return List.of(input);
    }

    private void submit(Input.Submit s, List<Output> out) {
        if (jobs.containsKey(s.jobId())) {
            // The job keeps its state: the event says the second submission was refused.
            out.add(writer.rejected(s.jobId(), stateOf(s.jobId()), s.at(),
                    "duplicate job id '" + s.jobId() + "': already submitted", "jobId"));
            return;
        }
        SubmissionRules.Rejection why = rules.check(s, core.budgets(), liveness.shape());
        if (why != null) {
            out.add(writer.rejected(s.jobId(), JobState.REJECTED, s.at(), why.reason(), why.field()));
            // Remember the id: a later submission with it is a duplicate, not a new job.
            jobs.put(s.jobId(), EdgeJob.rejected());
            return;
        }
        jobs.put(s.jobId(), EdgeJob.accepted(new EdgeJob.Launch(s.command(), s.env(), s.checkpointGraceSeconds())));
        core.submit(s.at(), coreRequest(s, cluster));
        ChargeMode mode = s.minRuntimeSeconds() > 0 ? ChargeMode.ALLOCATED : ChargeMode.UNALLOCATED;
        out.add(writer.accepted(s, mode));
    }

    /** The core's request for a submission of {@code cluster}. */
    static JobRequest coreRequest(Input.Submit s, String cluster) {
        long expected = s.expectedDurationSeconds() == null ? -1 : s.expectedDurationSeconds() * 1000;
        return new JobRequest(s.jobId(), s.budget(), cluster, s.replicas(), s.gpusPerReplica(),
                s.minRuntimeSeconds() * 1000, s.resumable(), s.priority(), s.submittedAt(), expected);
    }

    private void cancel(Input.Cancel c, List<Output> out) {
        EdgeJob j = jobs.get(c.jobId());
        JobState state = stateOf(c.jobId());
        if (j == null || (state != JobState.WAITING && state != JobState.RUNNING)) {
            return; // unknown or already decided: nothing to cancel
        }
        List<EdgeJob.Stop> stops = state == JobState.RUNNING
                ? endRun(c.jobId(), j, placement(c.jobId()), StopReason.CANCELLED, null, c.at())
                : List.of();
        core.cancel(c.at(), c.jobId());
        j.verdict = JobState.CANCELLED;
        out.addAll(writer.cancelled(c, stops, state == JobState.RUNNING));
    }

    private void registerNode(Input.RegisterNode n) {
        switch (liveness.registered(n, liveInCore(n.nodeId()))) {
            case REPEATED -> {
                return;
            }
            // The agent restarted: whatever ran there is gone. Requeue its jobs, then register it afresh.
            case AGENT_RESTARTED -> core.nodeLost(n.at(), n.nodeId());
            case NEW_OR_RETURNING -> {
            }
        }
        core.registerNode(n.at(), new NodeSpec(cluster, n.nodeId(), n.gpus()));
    }

    /** A node is heard from: liveness, stray replicas stopped, and a lost node back registers afresh. */
    private List<Input> heartbeat(Input.Heartbeat h, List<Output> out) {
        boolean lost = core.node(h.nodeId()).map(NodeView::lost).orElse(false);
        NodeLiveness.Heard heard = liveness.heartbeat(h, lost, new NodeLiveness.Replicas() {
            @Override
            public boolean assigned(String jobId, String nodeId) {
                return runsThere(jobId, nodeId);
            }

            @Override
            public boolean stopping(String jobId, String nodeId) {
                EdgeJob j = jobs.get(jobId);
                return j != null && j.stopping(nodeId);
            }
        });
        out.addAll(writer.strayStops(heard.strays(), h.at()));
        if (heard.returning() != null) {
            return apply(heard.returning(), out);
        }
        if (core.node(h.nodeId()).map(NodeView::unreachable).orElse(false)) {
            core.nodeReachable(h.at(), h.nodeId()); // silent a while, not lost: it takes work again
            return List.of(h);
        }
        return List.of();
    }

    private void exited(Input.Exited e, List<Output> out) {
        EdgeJob j = jobs.get(e.jobId());
        if (j == null) {
            return;
        }
        if (j.stopExpected(e.nodeId())) {
            if (e.exitCode() == 0 && !e.stopped() && j.verdict == null) {
                finishedBeforeItsStop(e, j, out);
            }
            return; // we asked it to stop (preemption, drain, cancel, gang failure): not a verdict
        }
        if (!runsThere(e.jobId(), e.nodeId()) || e.stopped()) {
            return; // a replica of an earlier run, or stopped by someone else: not this run's verdict
        }
        List<ReplicaPlacement> placement = placement(e.jobId());
        if (e.exitCode() == 0) {
            if (j.exitedOk(e.nodeId()) == placement.size()) {
                runEnded(e.jobId(), j, e.at()); // every replica exited: nothing to stop
                learn(core.job(e.jobId()).orElseThrow().request(), j.ranMillis(e.at()));
                core.jobExited(e.at(), e.jobId());
                j.verdict = JobState.COMPLETED;
                out.add(writer.completed(e.jobId(), e.at(), j.chargedGpuSeconds()));
            }
            return;
        }
        // A replica failed on its own: the gang cannot go on. Stop the others; the job fails.
        j.exitedOk(e.nodeId()); // nothing to stop there
        List<EdgeJob.Stop> stops = endRun(e.jobId(), j, placement, StopReason.GANG_FAILED, null, e.at());
        core.jobExited(e.at(), e.jobId());
        j.verdict = JobState.FAILED;
        out.addAll(writer.gangFailed(e, stops));
    }

    /**
     * A replica we had told to stop says it exited 0 by itself ({@code stopped=false}: its command ended
     * before the stop reached it, e.g. a short job preempted just after its placement, or a job that ended
     * while its agent was down and the node was declared lost). Its work is done: once every replica of the
     * run has, the job is completed, taken out of the queue it was put back in (and a run placed since is
     * stopped), instead of being run a second time.
     */
    private void finishedBeforeItsStop(Input.Exited e, EdgeJob j, List<Output> out) {
        JobView job = core.job(e.jobId()).orElse(null);
        if (job == null || j.exitedOk(e.nodeId()) < job.request().replicas()) {
            return; // another replica of the gang was stopped before it finished: the run did not complete
        }
        List<EdgeJob.Stop> stops = job.state() == dev.allot.core.JobState.RUNNING
                ? endRun(e.jobId(), j, job.placement(), StopReason.NOT_ASSIGNED, null, e.at())
                : List.of();
        if (job.state() == dev.allot.core.JobState.WAITING || job.state() == dev.allot.core.JobState.RUNNING) {
            learn(job.request(), j.ranMillis(e.at()));
            core.cancel(e.at(), e.jobId());
            j.verdict = JobState.COMPLETED;
            out.addAll(writer.completedBeforeItsStop(e, stops, j.chargedGpuSeconds()));
        }
    }

    /**
     * The accounting-service's rolling usage is the truth about what an account used; the core's
     * ledger is brought to it by adding the difference (the core rolls leaves up the tree itself,
     * so only leaves are fed).
     */
    private void usage(Input.Usage u) {
        if (!usageFromAccounting) {
            return;
        }
        BudgetView budgets = core.budgets();
        if (!budgets.exists(u.account()) || !budgets.children(u.account()).isEmpty()) {
            return;
        }
        AccountUsage now = core.usage(cluster, u.account());
        double charged = u.chargedGpuSeconds() - now.chargedGpuSeconds();
        double unallocated = u.unallocatedGpuSeconds() - now.unallocatedGpuSeconds();
        if (Math.abs(charged) > 1e-6) {
            core.recordUsage(new UsageRecord(u.account(), cluster, u.at() - 1, u.at(), charged, true));
        }
        if (Math.abs(unallocated) > 1e-6) {
            core.recordUsage(new UsageRecord(u.account(), cluster, u.at() - 1, u.at(), unallocated, false));
        }
    }

    // ------------------------------------------------------------------ restore from the log

    /**
     * A fresh projection takes the state the log describes ({@link LogRestore}): budgets, node
     * registrations and drains applied as inputs in the order of the times the log gives them (so
     * entitlement counts from when each budget and node began, as it did live; of a budget changed
     * several times the compacted log keeps the latest definition only), the jobs restored in the
     * core as they stood (a running job on its GPUs; one the core cannot restore there waits again,
     * its replicas stopped as strays by the agents' heartbeats), then usage. Liveness starts afresh
     * from {@code now}.
     */
    void restore(long now, List<Input> facts, java.util.Set<String> drainReported, List<LogRestore.Job> restored,
            java.util.Collection<Input.Usage> usage, List<LogRestore.CompletedRun> completed) {
        List<Output> discarded = new java.util.ArrayList<>();
        List<Input> inTimeOrder = new java.util.ArrayList<>(facts);
        inTimeOrder.sort(java.util.Comparator.comparingLong(Input::at)); // stable: log order among equal times
        for (Input f : inTimeOrder) {
            apply(withTime(f, Math.min(f.at(), now)), discarded);
        }
        drainReported.forEach(core::restoreDrainReported);
        List<LogRestore.Job> runningNow = new java.util.ArrayList<>();
        for (LogRestore.Job j : restored) {
            jobs.put(j.jobId, j.edge);
            dev.allot.core.RestoredJob r = j.restored();
            if (r == null) {
                continue;
            }
            try {
                core.restore(now, r);
                if (r.running()) {
                    runningNow.add(j);
                }
            } catch (RuntimeException e) {
                LOG.errorf("job %s cannot be restored as it stood (%s); it waits again", j.jobId, e.getMessage());
                core.restore(now, dev.allot.core.RestoredJob.waiting(r.request(), r.queuedSinceMillis(), r.requeues()));
            }
        }
        runningNow.sort(java.util.Comparator.comparingLong(j -> j.placedAt));
        runningNow.forEach(j -> running.add(j.jobId));
        for (Input.Usage u : usage) {
            usage(new Input.Usage(now, u.account(), u.chargedGpuSeconds(), u.unallocatedGpuSeconds()));
        }
        liveness.heardAllAt(now);
        completed.forEach(c -> learn(c.request(), c.ranMillis()));
    }

    private static Input withTime(Input in, long at) {
        return switch (in) {
            case Input.DefineBudget b -> new Input.DefineBudget(at, b.path(), b.parent(), b.share(), b.createdAt());
            case Input.RemoveBudget b -> new Input.RemoveBudget(at, b.path());
            case Input.RegisterNode n -> new Input.RegisterNode(at, n.nodeId(), n.gpus(), n.agentEpoch());
            case Input.Drain d -> new Input.Drain(at, d.nodeId(), d.requestedBy());
            case Input.Undrain u -> new Input.Undrain(at, u.nodeId());
            default -> in;
        };
    }

    // ------------------------------------------------------------------ liveness

    /**
     * Nodes silent for a while ({@link Input.NodeUnreachable}) or longer than {@code lost-after}
     * ({@link Input.NodeLost}), to be applied; see {@link NodeLiveness#silentNodes}.
     */
    public List<Input> silentNodes(long now) {
        return liveness.silentNodes(now, this::liveInCore,
                nodeId -> core.node(nodeId).map(n -> !n.unreachable()).orElse(false));
    }

    /** The instance did not read its inputs for {@code millis}: not the nodes' silence (see NodeLiveness). */
    public void notListening(long millis) {
        liveness.notListening(millis);
    }

    /** After a rebuild: liveness is not in the log, so every known node gets a fresh grace period. */
    public void heardAllAt(long now) {
        liveness.heardAllAt(now);
    }

    // ------------------------------------------------------------------ passes

    /** One scheduling pass of the core at {@code now}; its decisions become events and commands. */
    public PassResult pass(long now, List<Output> out) {
        List<Decision> decisions = core.schedule(now);
        Map<String, Integer> kinds = new TreeMap<>();
        for (Decision d : decisions) {
            kinds.merge(d.getClass().getSimpleName(), 1, Integer::sum);
            out.addAll(writer.write(d, now, carryOut(d, now)));
        }
        return new PassResult(decisions.size(), kinds);
    }

    /** What the edge keeps of a decision; returns the replicas to stop for one that releases a placement. */
    private List<EdgeJob.Stop> carryOut(Decision decision, long now) {
        return switch (decision) {
            case Decision.Place p -> {
                EdgeJob j = jobs.get(p.jobId());
                if (j != null) {
                    j.placed(p.replicas(), p.chargeMode() == ChargeMode.ALLOCATED, now);
                    running.add(p.jobId());
                }
                yield List.of();
            }
            case Decision.Preempt p -> released(p.jobId(), p.released(), StopReason.PREEMPTED, null, now);
            case Decision.Requeue q -> released(q.jobId(), q.released(), StopReason.NOT_ASSIGNED, q.nodeId(), now);
            case Decision.ReleaseForDrain d -> released(d.jobId(), d.released(), StopReason.DRAIN, null, now);
            // Reject: the core holds the job rejected; NodeDrained, Reserve: nothing kept at the edge.
            default -> List.of();
        };
    }

    private List<EdgeJob.Stop> released(String jobId, List<ReplicaPlacement> placement, StopReason reason,
            String lostNode, long now) {
        EdgeJob j = jobs.get(jobId);
        return j == null ? List.of() : endRun(jobId, j, placement, reason, lostNode, now);
    }

    /** The run on {@code placement} ends: its live replicas are told to stop, its charge is added. */
    private List<EdgeJob.Stop> endRun(String jobId, EdgeJob j, List<ReplicaPlacement> placement, StopReason reason,
            String lostNode, long at) {
        List<EdgeJob.Stop> stops = j.stop(placement, reason, lostNode);
        runEnded(jobId, j, at);
        return stops;
    }

    private void runEnded(String jobId, EdgeJob j, long at) {
        j.runEnded(core.job(jobId).orElseThrow().gpus(), at);
        running.remove(jobId);
    }

    // ------------------------------------------------------------------ run times and expected starts

    /** A job completed after running {@code ranMillis}: the run-time model learns it (the same live and on a rebuild). */
    private void learn(JobRequest request, long ranMillis) {
        if (ranMillis < 0) {
            return;
        }
        runTimes.observe(request, ranMillis);
        learnedRuns++;
        learnedMillis += ranMillis;
    }

    public Learned learned() {
        return new Learned(learnedRuns, learnedMillis);
    }

    /** The run-time model the expected starts use. */
    public RunTimeModel runTimes() {
        return runTimes;
    }

    /** Whether the expected starts may be refreshed at {@code now} (at most once per configured interval). */
    public boolean estimatesDue(long now) {
        return estimates.due(now);
    }

    /**
     * Copies the core as it stands for new expected starts and hands the forward run on (to the thread given
     * by {@link #estimateOn}, else run here); true if a forward run was handed over.
     */
    public boolean refreshEstimates(long now) {
        return estimates.refresh(core, now);
    }

    /** Forward runs of the expected starts go to {@code executor} (one thread), their durations to {@code timer}. */
    public void estimateOn(Executor executor, LongConsumer timer) {
        estimates.runOn(executor, timer);
    }

    /** Whether new expected starts were published since the last call (the next snapshot should carry them). */
    public boolean newEstimates() {
        return estimates.takeUnseen();
    }

    /** The last refresh's expected starts (null before the first), as the next snapshot publishes them. */
    public StartEstimates.Latest estimates() {
        return estimates.latest();
    }

    // ------------------------------------------------------------------ the core's answers

    private boolean liveInCore(String nodeId) {
        return core.node(nodeId).map(n -> !n.lost()).orElse(false);
    }

    /** The core runs the job with a replica on the node. */
    private boolean runsThere(String jobId, String nodeId) {
        Optional<JobView> j = core.job(jobId);
        if (j.isEmpty() || j.get().state() != dev.allot.core.JobState.RUNNING) {
            return false;
        }
        for (ReplicaPlacement r : j.get().placement()) {
            if (r.nodeId().equals(nodeId)) {
                return true;
            }
        }
        return false;
    }

    private List<ReplicaPlacement> placement(String jobId) {
        return core.job(jobId).orElseThrow().placement();
    }

    /** What the decision writer reads. */
    private final class Facts implements DecisionWriter.Facts {
        @Override
        public long agentEpoch(String nodeId) {
            return liveness.agentEpoch(nodeId);
        }

        @Override
        public EdgeJob.Launch launch(String jobId) {
            EdgeJob j = jobs.get(jobId);
            return j == null ? null : j.launch;
        }

        @Override
        public boolean inDebugLane(String jobId) {
            return core.job(jobId).map(JobView::inDebugLane).orElse(false);
        }

        @Override
        public int requeues(String jobId) {
            return core.job(jobId).orElseThrow().requeues();
        }

        @Override
        public long queuedSince(String jobId) {
            return core.job(jobId).orElseThrow().queuedSinceMillis();
        }

        @Override
        public AccountUsage usage(String account) {
            return core.usage(cluster, account);
        }
    }

    // ------------------------------------------------------------------ views published by the loop

    /** The cluster's queue as the last pass saw it: waiting jobs in order, then running jobs. */
    public QueueSnapshot snapshot(long now, int maxEntries) {
        return QueueViews.snapshot(core, cluster, running, now, maxEntries, estimates.latest());
    }

    /** The cluster's GPUs right now: on live nodes, held by running jobs, and asked for by waiting jobs per account. */
    public record Gpus(int total, int busy, Map<String, Integer> waitingByAccount) {
        static final Gpus NONE = new Gpus(0, 0, Map.of());
    }

    public Gpus gpus() {
        int total = 0;
        int free = 0;
        for (NodeView node : core.nodes()) {
            if (node.cluster().equals(cluster) && !node.lost()) {
                total += node.spec().gpus();
                free += node.freeGpus();
            }
        }
        Map<String, Integer> waiting = new TreeMap<>();
        for (JobView j : core.waiting(cluster)) {
            waiting.merge(j.account(), j.gpus(), Integer::sum);
        }
        return new Gpus(total, total - free, waiting);
    }

    /** The core's clock: the time of the last input or pass. */
    public long nowMillis() {
        return core.nowMillis();
    }

    /** Every account's window usage, entitlement and ratio as the core counts them. */
    public java.util.SortedMap<String, AccountUsage> usageByAccount() {
        return core.usage(cluster);
    }

    /** GPUs per account right now: [waiting, running allocated]. Sampled by the demand meter. */
    public Map<String, int[]> demandByAccount() {
        return QueueViews.demandByAccount(core, cluster, running);
    }
}
