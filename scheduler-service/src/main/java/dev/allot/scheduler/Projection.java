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
import dev.allot.core.explain.AccountUsage;
import dev.allot.core.explain.RunningExplanation;
import dev.allot.core.explain.WaitingExplanation;
import dev.allot.core.policy.BudgetView;
import dev.allot.schemas.AccountRatio;
import dev.allot.schemas.GpuAssignment;
import dev.allot.schemas.JobAccepted;
import dev.allot.schemas.JobCompleted;
import dev.allot.schemas.JobEvent;
import dev.allot.schemas.JobFailed;
import dev.allot.schemas.JobLost;
import dev.allot.schemas.JobPlaced;
import dev.allot.schemas.JobPreempted;
import dev.allot.schemas.JobRejected;
import dev.allot.schemas.JobRequeued;
import dev.allot.schemas.JobState;
import dev.allot.schemas.NodeCommand;
import dev.allot.schemas.NodeDrained;
import dev.allot.schemas.NodeStatus;
import dev.allot.schemas.PreemptionReason;
import dev.allot.schemas.QueueEntry;
import dev.allot.schemas.QueueSnapshot;
import dev.allot.schemas.StartJob;
import dev.allot.schemas.StopJob;
import dev.allot.schemas.StopReason;
import dev.allot.schemas.catalogue.Topics;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;

/**
 * The scheduler's state for one cluster: the scheduling core plus what only the edge knows (each
 * job's command and environment, its current placement as sent to the nodes, which replicas exited,
 * which were told to stop, node agents' epochs and liveness). No Kafka here: inputs come in as
 * {@link Input}s, decisions go out as {@link Output}s; the loop makes them a transaction.
 *
 * <p>Single-threaded, like the core. Every method that changes state is driven only by its
 * arguments (time included), so replaying the journal's inputs rebuilds the same state.
 */
public final class Projection {

    /** Kept at the edge per job; the core has the scheduling view, this has what nodes need. */
    static final class JobRecord {
        final Input.Submit request;
        final ChargeMode mode;
        JobState state = JobState.WAITING;
        List<ReplicaPlacement> placement = List.of();
        long placedAt = -1;
        long lastCheckpoint = -1;
        boolean startReported;
        int placements;
        double chargedGpuSeconds;
        final Set<String> exitedOk = new HashSet<>();
        /** nodeId of a replica told to stop and not yet exited: its exit is expected, not a verdict. */
        final Map<String, StopReason> stopping = new HashMap<>();

        JobRecord(Input.Submit request, ChargeMode mode) {
            this.request = request;
            this.mode = mode;
        }

        int gpus() {
            return request.replicas() * request.gpusPerReplica();
        }

        boolean runsOn(String nodeId) {
            for (ReplicaPlacement r : placement) {
                if (r.nodeId().equals(nodeId)) {
                    return true;
                }
            }
            return false;
        }
    }

    static final class NodeRecord {
        final String nodeId;
        int gpus;
        long agentEpoch;

        NodeRecord(String nodeId, int gpus, long agentEpoch) {
            this.nodeId = nodeId;
            this.gpus = gpus;
            this.agentEpoch = agentEpoch;
        }
    }

    /** Counts of what the last pass decided, for metrics. */
    public record PassResult(int decisions, Map<String, Integer> byKind) {
    }

    private final Settings settings;
    private final String cluster;
    private final Scheduler core;
    private final boolean usageFromAccounting;
    private final Map<String, JobRecord> jobs = new HashMap<>();
    private final LinkedHashMap<String, JobRecord> running = new LinkedHashMap<>();
    private final TreeMap<String, NodeRecord> nodes = new TreeMap<>();
    /** Edge-only liveness (not journaled: after a restart every node gets a fresh grace period). */
    private final Map<String, Long> lastHeard = new HashMap<>();
    private final Map<String, Long> fencedAt = new HashMap<>();

    public Projection(Settings settings) {
        this.settings = settings;
        this.cluster = settings.cluster();
        this.usageFromAccounting = !"running-jobs".equals(settings.usageFeed());
        SchedulerConfig config = SchedulerConfig.defaults()
                .withUsageFeed(usageFromAccounting ? UsageFeed.USAGE_RECORDS : UsageFeed.RUNNING_JOBS);
        this.core = new Scheduler(config);
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

    public boolean knowsNode(String nodeId) {
        return nodes.containsKey(nodeId);
    }

    public int runningCount() {
        return running.size();
    }

    public int waitingCount() {
        return core.waiting(cluster).size();
    }

    public int nodeCount() {
        return nodes.size();
    }

    /** Jobs the edge believes run now, with their placements (node, epoch, GPU indices). */
    public Map<String, List<ReplicaPlacement>> runningPlacements() {
        Map<String, List<ReplicaPlacement>> out = new LinkedHashMap<>();
        running.forEach((id, r) -> out.put(id, r.placement));
        return out;
    }

    public JobState stateOf(String jobId) {
        JobRecord r = jobs.get(jobId);
        return r == null ? null : r.state;
    }

    // ------------------------------------------------------------------ inputs

    /** Applies one input; decisions that follow from it directly (verdicts, stops) go to {@code out}. */
    public void apply(Input input, List<Output> out) {
        switch (input) {
            case Input.Submit s -> submit(s, out);
            case Input.Cancel c -> cancel(c, out);
            case Input.DefineBudget b -> core.defineBudget(b.at(), b.path(), b.parent(), b.share());
            case Input.RemoveBudget b -> core.removeBudget(b.at(), b.path());
            case Input.RegisterNode n -> registerNode(n);
            case Input.NodeLost n -> {
                NodeView v = core.node(n.nodeId()).orElse(null);
                if (v != null && !v.lost()) {
                    core.nodeLost(n.at(), n.nodeId());
                }
            }
            case Input.Drain d -> {
                if (nodes.containsKey(d.nodeId())) {
                    core.drainNode(d.at(), d.nodeId());
                }
            }
            case Input.Undrain u -> {
                if (nodes.containsKey(u.nodeId())) {
                    core.undrainNode(u.at(), u.nodeId());
                }
            }
            case Input.Started s -> {
                JobRecord r = jobs.get(s.jobId());
                if (r != null && r.state == JobState.RUNNING && r.runsOn(s.nodeId()) && !r.startReported) {
                    r.startReported = true;
                    core.jobStarted(s.at(), s.jobId());
                }
            }
            case Input.Checkpointed c -> {
                JobRecord r = jobs.get(c.jobId());
                if (r != null && r.state == JobState.RUNNING && r.runsOn(c.nodeId())) {
                    r.lastCheckpoint = c.at();
                    core.jobCheckpointed(c.at(), c.jobId());
                }
            }
            case Input.Exited e -> exited(e, out);
            case Input.Usage u -> usage(u);
        }
    }

    private void submit(Input.Submit s, List<Output> out) {
        JobRecord existing = jobs.get(s.jobId());
        if (existing != null) {
            // The job keeps its state: the event says the second submission was refused.
            out.add(jobEvent(s.jobId(), existing.state, s.at(),
                    new JobRejected("duplicate job id '" + s.jobId() + "': already submitted", "jobId")));
            return;
        }
        Rejection why = validate(s);
        if (why != null) {
            out.add(jobEvent(s.jobId(), JobState.REJECTED, s.at(), new JobRejected(why.reason(), why.field())));
            // Remember the id: a later submission with it is a duplicate, not a new job.
            JobRecord rejected = new JobRecord(s, ChargeMode.UNALLOCATED);
            rejected.state = JobState.REJECTED;
            jobs.put(s.jobId(), rejected);
            return;
        }
        ChargeMode mode = s.minRuntimeSeconds() > 0 ? ChargeMode.ALLOCATED : ChargeMode.UNALLOCATED;
        JobRecord r = new JobRecord(s, mode);
        jobs.put(s.jobId(), r);
        long expected = s.expectedDurationSeconds() == null ? -1 : s.expectedDurationSeconds() * 1000;
        core.submit(s.at(), new JobRequest(s.jobId(), s.budget(), cluster, s.replicas(), s.gpusPerReplica(),
                s.minRuntimeSeconds() * 1000, s.resumable(), s.priority(), s.submittedAt(), expected));
        out.add(jobEvent(s.jobId(), JobState.WAITING, s.at(),
                new JobAccepted(s.budget(), cluster, schemaMode(mode), Instant.ofEpochMilli(s.submittedAt()))));
    }

    record Rejection(String reason, String field) {
    }

    /** The submission rules the edge can check at once, first failure wins (README, "Validation"). */
    Rejection validate(Input.Submit s) {
        if (s.jobId() == null || s.jobId().isBlank()) {
            return new Rejection("job id is empty", "jobId");
        }
        BudgetView budgets = core.budgets();
        if (s.budget() == null || !budgets.exists(s.budget())) {
            return new Rejection("unknown account '" + s.budget() + "': not in the budget tree", "budget");
        }
        if (!budgets.children(s.budget()).isEmpty()) {
            return new Rejection("account '" + s.budget() + "' is not a leaf of the budget tree (children: "
                    + String.join(", ", budgets.children(s.budget())) + ")", "budget");
        }
        if (s.replicas() < 1) {
            return new Rejection("replicas must be at least 1, got " + s.replicas(), "replicas");
        }
        if (s.gpusPerReplica() < 1) {
            return new Rejection("gpusPerReplica must be at least 1, got " + s.gpusPerReplica(), "gpusPerReplica");
        }
        long maxSeconds = core.config().maxMinRuntimeMillis() / 1000;
        if (s.minRuntimeSeconds() < 0) {
            return new Rejection("minRuntimeSeconds " + s.minRuntimeSeconds() + " is negative", "minRuntimeSeconds");
        }
        if (s.minRuntimeSeconds() > maxSeconds) {
            return new Rejection("minRuntimeSeconds " + s.minRuntimeSeconds() + " exceeds the maximum of "
                    + maxSeconds + " s (" + (maxSeconds / 3600.0) + " h)", "minRuntimeSeconds");
        }
        if (s.command() == null || s.command().isEmpty() || s.command().get(0).isBlank()) {
            return new Rejection("command is empty", "command");
        }
        int largest = 0;
        int count = 0;
        long total = 0;
        for (NodeRecord n : nodes.values()) {
            largest = Math.max(largest, n.gpus);
            count++;
            total += n.gpus;
        }
        if (s.gpusPerReplica() > largest) {
            return new Rejection("gpusPerReplica " + s.gpusPerReplica() + " exceeds the largest node of cluster '"
                    + cluster + "' (" + largest + " GPUs)", "gpusPerReplica");
        }
        if (s.replicas() > count) {
            return new Rejection("replicas " + s.replicas() + " exceeds the " + count + " nodes of cluster '"
                    + cluster + "' (one replica per node)", "replicas");
        }
        long asked = (long) s.replicas() * s.gpusPerReplica();
        if (asked > total) {
            return new Rejection("the job asks for " + asked + " GPUs, cluster '" + cluster + "' has " + total,
                    "replicas");
        }
        return null;
    }

    private void cancel(Input.Cancel c, List<Output> out) {
        JobRecord r = jobs.get(c.jobId());
        if (r == null || (r.state != JobState.WAITING && r.state != JobState.RUNNING)) {
            return; // unknown or already decided: nothing to cancel
        }
        if (r.state == JobState.RUNNING) {
            stopReplicas(r, StopReason.CANCELLED, null, c.at(), out);
            endRun(r, c.at());
        }
        core.cancel(c.at(), c.jobId());
        r.state = JobState.CANCELLED;
        String reason = "cancelled by " + c.requestedBy() + (c.reason() == null ? "" : ": " + c.reason());
        out.add(jobEvent(c.jobId(), JobState.CANCELLED, c.at(), new JobFailed(reason, null)));
    }

    private void registerNode(Input.RegisterNode n) {
        NodeRecord known = nodes.get(n.nodeId());
        NodeView view = core.node(n.nodeId()).orElse(null);
        lastHeard.put(n.nodeId(), n.at());
        if (known != null && view != null && !view.lost()) {
            if (n.agentEpoch() <= known.agentEpoch) {
                return; // the same registration again
            }
            // The agent restarted: whatever ran there is gone. Requeue its jobs, then register it afresh.
            core.nodeLost(n.at(), n.nodeId());
        }
        if (known == null) {
            nodes.put(n.nodeId(), new NodeRecord(n.nodeId(), n.gpus(), n.agentEpoch()));
        } else {
            known.gpus = n.gpus();
            known.agentEpoch = Math.max(known.agentEpoch, n.agentEpoch());
        }
        core.registerNode(n.at(), new NodeSpec(cluster, n.nodeId(), n.gpus()));
    }

    private void exited(Input.Exited e, List<Output> out) {
        JobRecord r = jobs.get(e.jobId());
        if (r == null) {
            return;
        }
        if (r.stopping.remove(e.nodeId()) != null) {
            return; // we asked it to stop (preemption, drain, cancel, gang failure): not a verdict
        }
        if (r.state != JobState.RUNNING || !r.runsOn(e.nodeId()) || e.stopped()) {
            return; // a replica of an earlier run, or stopped by someone else: not this run's verdict
        }
        if (e.exitCode() == 0) {
            r.exitedOk.add(e.nodeId());
            if (r.exitedOk.size() == r.placement.size()) {
                endRun(r, e.at());
                core.jobExited(e.at(), e.jobId());
                r.state = JobState.COMPLETED;
                out.add(jobEvent(e.jobId(), JobState.COMPLETED, e.at(), new JobCompleted(r.chargedGpuSeconds)));
            }
            return;
        }
        // A replica failed on its own: the gang cannot go on. Stop the others; the job fails.
        r.exitedOk.add(e.nodeId()); // nothing to stop there
        stopReplicas(r, StopReason.GANG_FAILED, null, e.at(), out);
        endRun(r, e.at());
        core.jobExited(e.at(), e.jobId());
        r.state = JobState.FAILED;
        out.add(jobEvent(e.jobId(), JobState.FAILED, e.at(), new JobFailed("replica " + e.replicaIndex()
                + " on node " + e.nodeId() + " exited with code " + e.exitCode(), e.exitCode())));
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

    // ------------------------------------------------------------------ liveness (edge only)

    /**
     * A heartbeat. Returns the input to apply when a node we had declared lost is heard from again
     * (it registers afresh: fenced, empty). Replicas it runs that are not assigned to it are stopped.
     */
    public Input heartbeat(long at, String nodeId, long epoch, List<String> runningJobs, List<Output> out) {
        NodeRecord n = nodes.get(nodeId);
        if (n == null) {
            return null;
        }
        lastHeard.put(nodeId, at);
        NodeView view = core.node(nodeId).orElse(null);
        Input returned = null;
        if (view != null && view.lost()) {
            returned = new Input.RegisterNode(at, nodeId, n.gpus, Math.max(epoch, n.agentEpoch));
        }
        for (String jobId : runningJobs) {
            JobRecord r = jobs.get(jobId);
            boolean assigned = r != null && r.state == JobState.RUNNING && r.runsOn(nodeId)
                    && returned == null;
            boolean alreadyStopping = r != null && r.stopping.containsKey(nodeId);
            String key = jobId + "@" + nodeId;
            Long last = fencedAt.get(key);
            if (!assigned && !alreadyStopping && (last == null || at - last > 30_000)) {
                fencedAt.put(key, at);
                StopReason reason = returned != null ? StopReason.FENCED : StopReason.NOT_ASSIGNED;
                out.add(nodeCommand(nodeId, at, new StopJob(jobId, nodeId, Math.max(epoch, n.agentEpoch), reason,
                        settings.stopGraceSeconds())));
            }
        }
        return returned;
    }

    /** Nodes that missed their heartbeats for longer than {@code lostAfter}: to be applied as {@link Input.NodeLost}. */
    public List<Input> lostNodes(long now) {
        List<Input> lost = new ArrayList<>();
        for (NodeRecord n : nodes.values()) {
            NodeView view = core.node(n.nodeId).orElse(null);
            Long heard = lastHeard.get(n.nodeId);
            if (view != null && !view.lost() && heard != null && now - heard > settings.lostAfter().toMillis()) {
                lost.add(new Input.NodeLost(now, n.nodeId));
            }
        }
        return lost;
    }

    /** After a replay: liveness is not in the journal, so every known node gets a fresh grace period. */
    public void heardAllAt(long now) {
        for (String id : nodes.keySet()) {
            lastHeard.put(id, now);
        }
    }

    // ------------------------------------------------------------------ passes

    /** One scheduling pass of the core at {@code now}; its decisions become events and commands. */
    public PassResult pass(long now, List<Output> out) {
        List<Decision> decisions = core.schedule(now);
        Map<String, Integer> kinds = new TreeMap<>();
        for (Decision d : decisions) {
            kinds.merge(d.getClass().getSimpleName(), 1, Integer::sum);
            carryOut(d, now, out);
        }
        return new PassResult(decisions.size(), kinds);
    }

    private void carryOut(Decision decision, long now, List<Output> out) {
        switch (decision) {
            case Decision.Place p -> place(p, now, out);
            case Decision.Preempt p -> {
                JobRecord r = jobs.get(p.jobId());
                if (r == null) {
                    return;
                }
                double lost = lostGpuSeconds(r, now);
                stopReplicas(r, StopReason.PREEMPTED, null, now, out);
                endRun(r, now);
                r.state = JobState.WAITING;
                PreemptionReason kind = p.victimMode() == ChargeMode.UNALLOCATED
                        ? PreemptionReason.UNALLOCATED_DISPLACED : PreemptionReason.FAIR_SHARE;
                List<AccountRatio> ratios = List.of(ratio(p.account(), p.victimRatio()),
                        ratio(p.preemptorAccount(), p.preemptorRatio()));
                out.add(jobEvent(p.jobId(), JobState.WAITING, now, new JobPreempted(kind, p.reason(),
                        p.preemptorJobId(), p.preemptorAccount(), ratios, lost, true)));
                out.add(requeued(r, now, "preempted by " + p.preemptorJobId() + ": " + p.reason()));
            }
            case Decision.Requeue q -> {
                JobRecord r = jobs.get(q.jobId());
                if (r == null) {
                    return;
                }
                stopReplicas(r, StopReason.NOT_ASSIGNED, q.nodeId(), now, out);
                endRun(r, now);
                r.state = JobState.WAITING;
                out.add(jobEvent(q.jobId(), JobState.WAITING, now, new JobLost(q.nodeId(), q.reason())));
                out.add(requeued(r, now, "node " + q.nodeId() + " lost: " + q.reason()));
            }
            case Decision.ReleaseForDrain d -> {
                JobRecord r = jobs.get(d.jobId());
                if (r == null) {
                    return;
                }
                double lost = lostGpuSeconds(r, now);
                stopReplicas(r, StopReason.DRAIN, null, now, out);
                endRun(r, now);
                r.state = JobState.WAITING;
                out.add(jobEvent(d.jobId(), JobState.WAITING, now, new JobPreempted(PreemptionReason.DRAIN,
                        d.reason(), null, null, List.of(), lost, true)));
                out.add(requeued(r, now, "node " + d.nodeId() + " drains: " + d.reason()));
            }
            case Decision.Reject j -> {
                JobRecord r = jobs.get(j.jobId());
                if (r != null) {
                    r.state = JobState.REJECTED;
                }
                out.add(jobEvent(j.jobId(), JobState.REJECTED, now, new JobRejected(j.reason(), null)));
            }
            case Decision.NodeDrained n -> out.add(new Output(Topics.NODE_STATUS.name(), n.nodeId(),
                    new NodeStatus(UUID.randomUUID().toString(), Instant.ofEpochMilli(now), n.nodeId(),
                            new NodeDrained(cluster))));
            case Decision.Reserve r -> {
                // Visible in the queue snapshot's reasons; nothing to tell the nodes.
            }
        }
    }

    private void place(Decision.Place p, long now, List<Output> out) {
        JobRecord r = jobs.get(p.jobId());
        if (r == null) {
            return;
        }
        r.placement = p.replicas();
        r.placedAt = now;
        r.lastCheckpoint = now;
        r.startReported = false;
        r.exitedOk.clear();
        r.placements++;
        r.state = JobState.RUNNING;
        for (ReplicaPlacement rp : p.replicas()) {
            // A stop still pending there belongs to an earlier run; its exit says stopped=true and is ignored.
            r.stopping.remove(rp.nodeId());
        }
        running.put(p.jobId(), r);
        List<GpuAssignment> assignments = new ArrayList<>();
        for (int i = 0; i < p.replicas().size(); i++) {
            ReplicaPlacement rp = p.replicas().get(i);
            long epoch = agentEpoch(rp.nodeId());
            assignments.add(new GpuAssignment(rp.nodeId(), epoch, i, rp.gpuIndices()));
            Input.Submit s = r.request;
            out.add(nodeCommand(rp.nodeId(), now, new StartJob(p.jobId(), rp.nodeId(), epoch, i, p.replicas().size(),
                    rp.gpuIndices(), s.command(), s.env() == null ? Map.of() : s.env(), r.placements - 1, s.budget(),
                    cluster, schemaMode(p.chargeMode()))));
        }
        out.add(jobEvent(p.jobId(), JobState.RUNNING, now, new JobPlaced(cluster, r.request.budget(), assignments,
                schemaMode(p.chargeMode()), Instant.ofEpochMilli(p.protectedUntilMillis()), r.placements,
                p.reason())));
    }

    private void stopReplicas(JobRecord r, StopReason reason, String lostNode, long at, List<Output> out) {
        for (ReplicaPlacement rp : r.placement) {
            if (r.exitedOk.contains(rp.nodeId())) {
                continue;
            }
            StopReason why = rp.nodeId().equals(lostNode) ? StopReason.FENCED : reason;
            r.stopping.put(rp.nodeId(), why);
            out.add(nodeCommand(rp.nodeId(), at, new StopJob(r.request.jobId(), rp.nodeId(),
                    agentEpoch(rp.nodeId()), why, settings.stopGraceSeconds())));
        }
    }

    /** The run ends: charge it (allocated jobs, from placement to release) and forget the placement. */
    private void endRun(JobRecord r, long at) {
        if (r.placedAt >= 0 && r.mode == ChargeMode.ALLOCATED) {
            r.chargedGpuSeconds += r.gpus() * Math.max(0, at - r.placedAt) / 1000.0;
        }
        r.placement = List.of();
        r.placedAt = -1;
        running.remove(r.request.jobId());
    }

    private double lostGpuSeconds(JobRecord r, long now) {
        long since = r.request.resumable() ? r.lastCheckpoint : r.placedAt;
        return since < 0 ? 0 : r.gpus() * Math.max(0, now - since) / 1000.0;
    }

    private Output requeued(JobRecord r, long now, String reason) {
        long queuedAt = core.job(r.request.jobId()).map(JobView::queuedSinceMillis).orElse(r.request.submittedAt());
        return jobEvent(r.request.jobId(), JobState.WAITING, now,
                new JobRequeued(Instant.ofEpochMilli(queuedAt), r.placements, reason));
    }

    private AccountRatio ratio(String account, double ratio) {
        if (account == null) {
            return new AccountRatio("", 0.0, 0.0, null);
        }
        AccountUsage u = core.usage(cluster, account);
        return new AccountRatio(account, u.chargedGpuSeconds(), u.entitledGpuSeconds(), finite(ratio));
    }

    private static Double finite(double d) {
        return Double.isNaN(d) || Double.isInfinite(d) ? null : d;
    }

    private long agentEpoch(String nodeId) {
        NodeRecord n = nodes.get(nodeId);
        return n == null ? 0 : n.agentEpoch;
    }

    // ------------------------------------------------------------------ views published by the loop

    /** The cluster's queue as the last pass saw it: waiting jobs in order, then running jobs. */
    public QueueSnapshot snapshot(long now, int maxEntries) {
        List<QueueEntry> entries = new ArrayList<>();
        for (JobView j : core.waiting(cluster)) {
            if (entries.size() >= maxEntries) {
                break;
            }
            WaitingExplanation w = core.explainWaiting(j.jobId()).orElse(null);
            List<AccountRatio> ahead = new ArrayList<>();
            if (w != null) {
                for (dev.allot.core.explain.AccountRatio a : w.accountsAhead()) {
                    ahead.add(new AccountRatio(a.account(), a.chargedGpuSeconds(), a.entitledGpuSeconds(),
                            finite(a.ratio())));
                }
            }
            entries.add(new QueueEntry(j.jobId(), j.account(), JobState.WAITING,
                    w == null ? entries.size() + 1 : w.position(), j.gpus(),
                    w == null ? "not yet looked at by a pass" : w.reason(), ahead, null));
        }
        for (JobRecord r : running.values()) {
            if (entries.size() >= maxEntries) {
                break;
            }
            RunningExplanation e = core.explainRunning(r.request.jobId()).orElse(null);
            Instant until = r.mode == ChargeMode.ALLOCATED && e != null
                    ? Instant.ofEpochMilli(e.protectedUntilMillis()) : null;
            entries.add(new QueueEntry(r.request.jobId(), r.request.budget(), JobState.RUNNING, null, r.gpus(),
                    e == null ? "running" : e.reason(), List.of(), until));
        }
        return new QueueSnapshot(cluster, Instant.ofEpochMilli(now), entries);
    }

    /** GPUs per account right now: [waiting, running allocated]. Sampled by the demand meter. */
    public Map<String, int[]> demandByAccount() {
        Map<String, int[]> demand = new TreeMap<>();
        for (JobView j : core.waiting(cluster)) {
            demand.computeIfAbsent(j.account(), a -> new int[2])[0] += j.gpus();
        }
        for (JobRecord r : running.values()) {
            if (r.mode == ChargeMode.ALLOCATED) {
                demand.computeIfAbsent(r.request.budget(), a -> new int[2])[1] += r.gpus();
            }
        }
        return demand;
    }

    // ------------------------------------------------------------------ record builders

    private static dev.allot.schemas.ChargeMode schemaMode(ChargeMode mode) {
        return mode == ChargeMode.ALLOCATED ? dev.allot.schemas.ChargeMode.ALLOCATED
                : dev.allot.schemas.ChargeMode.UNALLOCATED;
    }

    private static Output jobEvent(String jobId, JobState stateAfter, long at, Object payload) {
        return new Output(Topics.JOB_EVENTS.name(), jobId,
                new JobEvent(UUID.randomUUID().toString(), Instant.ofEpochMilli(at), jobId, stateAfter, payload));
    }

    private static Output nodeCommand(String nodeId, long at, Object payload) {
        return new Output(Topics.NODE_COMMANDS.name(), nodeId,
                new NodeCommand(UUID.randomUUID().toString(), Instant.ofEpochMilli(Math.max(0, at)), payload));
    }
}
