package dev.allot.scheduler;

import dev.allot.core.JobRequest;
import dev.allot.core.ReplicaPlacement;
import dev.allot.core.RestoredJob;
import dev.allot.schemas.GpuAssignment;
import dev.allot.schemas.JobAccepted;
import dev.allot.schemas.JobCancelled;
import dev.allot.schemas.JobCheckpointed;
import dev.allot.schemas.JobCompleted;
import dev.allot.schemas.JobEvent;
import dev.allot.schemas.JobExited;
import dev.allot.schemas.JobFailed;
import dev.allot.schemas.JobLost;
import dev.allot.schemas.JobPlaced;
import dev.allot.schemas.JobPreempted;
import dev.allot.schemas.JobRejected;
import dev.allot.schemas.JobRequeued;
import dev.allot.schemas.JobState;
import dev.allot.schemas.NodeDrained;
import dev.allot.schemas.NodeStatus;
import dev.allot.schemas.PreemptionReason;
import dev.allot.schemas.StopReason;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.avro.specific.SpecificRecord;

/**
 * The scheduler's state folded from the public log (README, "Recovery"): no Kafka here, the caller
 * hands in each topic's typed records in log order, then {@link #into} builds the projection.
 *
 * <p>Two kinds of records: <b>inputs</b> (budgets, node registrations and drains, usage,
 * submissions, agents' reports) count only if the instance that wrote the last commit had applied
 * them ({@code applied}: below its committed offset); <b>its own decisions</b> (every verdict on
 * {@code job-events}, {@code NodeDrained} on {@code node-status}) count wherever they are, since
 * only committed transactions are read. A decision's causes are always below the offsets committed
 * with it, so the fold yields the state the last commit left: jobs waiting with their queue time and
 * requeue count, running on the nodes and GPU indices of their last {@code JobPlaced}, with their
 * last checkpoint, and the edge's own facts per job (exits seen, stops pending, charge so far).
 */
final class LogRestore {

    /** One job as the log tells it; {@link #edge} is rebuilt with the same calls the live projection makes. */
    static final class Job {
        final String jobId;
        final EdgeJob edge;
        JobRequest request;
        boolean terminal;
        List<ReplicaPlacement> placement = List.of();
        long placedAt = -1;
        long lastCheckpoint = -1;
        long queuedSince;
        int requeues;
        boolean lane;

        Job(String jobId, EdgeJob edge) {
            this.jobId = jobId;
            this.edge = edge;
        }

        boolean running() {
            return !placement.isEmpty();
        }

        boolean runsOn(String nodeId) {
            for (ReplicaPlacement r : placement) {
                if (r.nodeId().equals(nodeId)) {
                    return true;
                }
            }
            return false;
        }

        /** What the core is to hold, or null for a job with a verdict. */
        RestoredJob restored() {
            if (terminal || request == null) {
                return null;
            }
            return running() ? RestoredJob.running(request, queuedSince, requeues, placement, placedAt, lastCheckpoint,
                    lane) : RestoredJob.waiting(request, queuedSince, requeues);
        }

        /** The current run ends at {@code at}: its live replicas are remembered as stopping, its charge added. */
        void endRun(StopReason reason, String lostNode, long at) {
            if (running()) {
                edge.stop(placement, reason, lostNode);
                edge.runEnded(request.gpus(), at);
            }
            placement = List.of();
            placedAt = -1;
            lastCheckpoint = -1;
            lane = false;
        }
    }

    /** A job that completed after running {@code ranMillis} (from its last JobPlaced to its JobCompleted). */
    record CompletedRun(JobRequest request, long ranMillis) {
    }

    private final String cluster;
    private final RecordMapper mapper;
    /** Completed runs in log order: the run-time model learns them again. */
    private final List<CompletedRun> completed = new ArrayList<>();
    /** Budgets, registrations and drains in log order. */
    private final List<Input> facts = new ArrayList<>();
    /** The latest usage per account. */
    private final Map<String, Input.Usage> usage = new LinkedHashMap<>();
    /** Draining nodes whose NodeDrained is in the log. */
    private final Set<String> drainReported = new HashSet<>();
    /** Submissions of this cluster the last instance read (first per id), for the launch and the shape. */
    private final Map<String, Input.Submit> submissions = new HashMap<>();
    /** Jobs in the order the log first names them (JobAccepted or an edge rejection). */
    private final LinkedHashMap<String, Job> jobs = new LinkedHashMap<>();
    private long records;

    LogRestore(String cluster) {
        this.cluster = cluster;
        this.mapper = new RecordMapper(cluster);
    }

    long records() {
        return records;
    }

    /** A record of {@code budgets}, {@code node-status} or {@code budget-usage}. */
    void fact(SpecificRecord event, boolean applied) {
        records++;
        if (event instanceof NodeStatus s && s.getPayload() instanceof NodeDrained d) {
            if (cluster.equals(d.getCluster())) {
                drainReported.add(s.getNodeId()); // our own decision: counts wherever it is
            }
            return;
        }
        if (!applied) {
            return;
        }
        List<Input> inputs;
        try {
            inputs = mapper.map(event, loggedAt(event), id -> false);
        } catch (RuntimeException e) {
            return; // dead-lettered when it was read live
        }
        for (Input in : inputs) {
            switch (in) {
                case Input.Heartbeat h -> {
                    // liveness starts afresh after a rebuild
                }
                case Input.Usage u -> usage.put(u.account(), u);
                case Input.Drain d -> {
                    drainReported.remove(d.nodeId());
                    facts.add(d);
                }
                case Input.Undrain u -> {
                    drainReported.remove(u.nodeId());
                    facts.add(u);
                }
                default -> facts.add(in);
            }
        }
    }

    /**
     * When the log says a fact began: a budget's {@code effectiveAt}, a node event's time. The core
     * counts entitlement from it, as it did (a moment later) when the fact was first read.
     */
    private static long loggedAt(SpecificRecord event) {
        if (event instanceof dev.allot.schemas.BudgetEvent b) {
            return b.getPayload() instanceof dev.allot.schemas.BudgetDefined d && d.getEffectiveAt() != null
                    ? d.getEffectiveAt().toEpochMilli() : b.getOccurredAt().toEpochMilli();
        }
        if (event instanceof NodeStatus s) {
            return s.getOccurredAt().toEpochMilli();
        }
        return 0;
    }

    /** A record of {@code job-requests} (only those applied count: the others are read again live). */
    void request(dev.allot.schemas.JobRequest request, boolean applied) {
        records++;
        if (!applied) {
            return;
        }
        List<Input> inputs;
        try {
            inputs = mapper.map(request, 0, id -> false);
        } catch (RuntimeException e) {
            return;
        }
        for (Input in : inputs) {
            if (in instanceof Input.Submit s) {
                submissions.putIfAbsent(s.jobId(), s);
            }
        }
    }

    /** A record of {@code job-events}: our decisions always, agents' reports when applied. */
    void jobEvent(JobEvent e, boolean applied) {
        records++;
        String id = e.getJobId();
        long at = e.getOccurredAt().toEpochMilli();
        Job j = jobs.get(id);
        switch (e.getPayload()) {
            case JobAccepted a -> {
                if (j == null && cluster.equals(a.getCluster())) {
                    accepted(id, a);
                }
            }
            case JobRejected r -> {
                if (e.getStateAfter() != JobState.REJECTED) {
                    return; // a duplicate submission refused: the first job keeps its state
                }
                if (j == null) {
                    if (submissions.containsKey(id)) { // a rejection by our submission rules
                        Job rejected = new Job(id, EdgeJob.rejected());
                        rejected.terminal = true;
                        jobs.put(id, rejected);
                    }
                } else if (!j.terminal) {
                    verdict(j, JobState.REJECTED, null, at); // the core refused it
                }
            }
            case JobPlaced p when j != null && !j.terminal -> {
                List<GpuAssignment> byReplica = new ArrayList<>(p.getAssignments());
                byReplica.sort(Comparator.comparingInt(GpuAssignment::getReplicaIndex));
                List<ReplicaPlacement> replicas = new ArrayList<>(byReplica.size());
                for (GpuAssignment g : byReplica) {
                    replicas.add(new ReplicaPlacement(g.getNodeId(), 0, g.getGpuIndices()));
                }
                j.placement = List.copyOf(replicas);
                j.placedAt = at;
                j.lastCheckpoint = -1;
                j.lane = p.getDebugLane();
                j.edge.placed(j.placement, p.getChargeMode() == dev.allot.schemas.ChargeMode.ALLOCATED, at);
            }
            case JobPreempted p when j != null && !j.terminal ->
                    j.endRun(p.getReason() == PreemptionReason.DRAIN ? StopReason.DRAIN : StopReason.PREEMPTED, null, at);
            case JobLost l when j != null && !j.terminal -> j.endRun(StopReason.NOT_ASSIGNED, l.getNodeId(), at);
            case JobRequeued q when j != null && !j.terminal -> {
                j.queuedSince = q.getQueuedAt().toEpochMilli();
                j.requeues = q.getRestartCount();
            }
            case JobCompleted c when j != null && !j.terminal -> {
                if (j.request != null) {
                    completed.add(new CompletedRun(j.request, j.edge.ranMillis(at)));
                }
                verdict(j, JobState.COMPLETED, null, at);
            }
            case JobFailed f when j != null && !j.terminal -> {
                // Before job-events v2 a cancel was a JobFailed with stateAfter CANCELLED.
                boolean cancel = e.getStateAfter() == JobState.CANCELLED;
                verdict(j, cancel ? JobState.CANCELLED : JobState.FAILED,
                        cancel ? StopReason.CANCELLED : StopReason.GANG_FAILED, at);
            }
            case JobCancelled c when j != null && !j.terminal -> verdict(j, JobState.CANCELLED, StopReason.CANCELLED, at);
            case JobCheckpointed c when applied && j != null && j.running() && j.runsOn(c.getNodeId()) ->
                    j.lastCheckpoint = Math.max(j.lastCheckpoint, at);
            case JobExited x when applied && j != null && !j.terminal -> exited(j, x);
            default -> {
                // JobStarted (a fact the core needs not), reports of jobs not ours, events after a verdict
            }
        }
    }

    private void accepted(String id, JobAccepted a) {
        Input.Submit s = submissions.get(id);
        EdgeJob.Launch launch = s == null ? new EdgeJob.Launch(List.of(), Map.of())
                : new EdgeJob.Launch(s.command(), s.env(), s.checkpointGraceSeconds());
        Job j = new Job(id, EdgeJob.accepted(launch));
        long queuedAt = a.getQueuedAt().toEpochMilli();
        j.request = s != null ? Projection.coreRequest(s, cluster)
                : new JobRequest(id, a.getBudget(), cluster, a.getReplicas(), a.getGpusPerReplica(),
                        a.getMinRuntimeSeconds() * 1000, a.getResumable(), a.getPriority(), queuedAt,
                        a.getExpectedDurationSeconds() == null ? -1 : a.getExpectedDurationSeconds() * 1000);
        j.queuedSince = queuedAt;
        jobs.put(id, j);
    }

    private static void verdict(Job j, JobState verdict, StopReason stop, long at) {
        j.endRun(stop == null ? StopReason.NOT_ASSIGNED : stop, null, at);
        j.edge.verdict = verdict;
        j.terminal = true;
    }

    /** An agent's exit as the live projection reads it, without the verdicts (those are in the log). */
    private static void exited(Job j, JobExited x) {
        if (j.edge.stopExpected(x.getNodeId())) {
            return;
        }
        if (!j.running() || !j.runsOn(x.getNodeId()) || x.getStopped()) {
            return;
        }
        j.edge.exitedOk(x.getNodeId()); // exit 0 or the failing replica: nothing to stop there
    }

    /**
     * The projection the log describes, at {@code now}: budgets and nodes from the times the log
     * gives them, the jobs in the order they were first accepted, then usage.
     */
    Projection into(Settings settings, long now) {
        Projection p = new Projection(settings);
        p.restore(now, facts, drainReported, new ArrayList<>(jobs.values()), usage.values(), completed);
        return p;
    }
}
