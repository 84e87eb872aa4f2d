package dev.allot.scheduler;

import dev.allot.core.ChargeMode;
import dev.allot.core.Decision;
import dev.allot.core.ReplicaPlacement;
import dev.allot.core.explain.AccountUsage;
import dev.allot.schemas.AccountRatio;
import dev.allot.schemas.GpuAssignment;
import dev.allot.schemas.JobAccepted;
import dev.allot.schemas.JobCancelled;
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
import dev.allot.schemas.StartJob;
import dev.allot.schemas.StopJob;
import dev.allot.schemas.catalogue.Topics;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * Every record the scheduler decides, built in one place (Armada's {@code EventsFromSchedulerResult}):
 * the core's {@link Decision}s become job events and node commands, and the edge's own verdicts
 * (accepted, rejected, completed, failed, cancelled) and stops become the same kinds of records. It
 * reads what it needs through {@link Facts} and changes nothing: which replicas to stop is decided
 * by the caller ({@link EdgeJob#stop}) and handed in.
 */
final class DecisionWriter {

    /** What the writer reads: the edge's knowledge and the core's answers. */
    interface Facts {
        /** The epoch the node's agent registered with: what commands to it carry. */
        long agentEpoch(String nodeId);

        /** How to start the job (command and environment as submitted); null for a job that is not ours. */
        EdgeJob.Launch launch(String jobId);

        /** Whether the job's current run was started in the debug lane. */
        boolean inDebugLane(String jobId);

        /** The core's count of the job's requeues (preemptions, drain releases, node losses). */
        int requeues(String jobId);

        /** The submit time the core orders the job by. */
        long queuedSince(String jobId);

        /** The account's window usage and entitlement in the core, at the core's time. */
        AccountUsage usage(String account);
    }

    /**
     * The most a job may declare as its checkpoint grace (JobSubmitted.checkpointGraceSeconds): a preemption
     * or a drain keeps the victim's GPUs that long past the decision. The budget-service refuses more.
     */
    static final int MAX_CHECKPOINT_GRACE_SECONDS = 300;

    private final String cluster;
    private final int stopGraceSeconds;
    private final Facts facts;

    DecisionWriter(String cluster, int stopGraceSeconds, Facts facts) {
        this.cluster = cluster;
        this.stopGraceSeconds = stopGraceSeconds;
        this.facts = facts;
    }

    /**
     * The records of one core decision taken at {@code now}, in the order they are to be written.
     *
     * @param stops for a decision that releases a placement, the replicas to stop (those of
     *     {@code released} that had not exited already); ignored otherwise
     */
    List<Output> write(Decision decision, long now, List<EdgeJob.Stop> stops) {
        List<Output> out = new ArrayList<>();
        switch (decision) {
            case Decision.Place p when ours(p.jobId()) -> placed(p, now, out);
            case Decision.Preempt p when ours(p.jobId()) -> {
                out.addAll(stopCommands(p.jobId(), stops, now));
                PreemptionReason kind = p.victimMode() == ChargeMode.UNALLOCATED
                        ? PreemptionReason.UNALLOCATED_DISPLACED : PreemptionReason.FAIR_SHARE;
                List<AccountRatio> ratios = List.of(ratio(p.account(), p.victimRatio()),
                        ratio(p.preemptorAccount(), p.preemptorRatio()));
                out.add(jobEvent(p.jobId(), JobState.WAITING, now, new JobPreempted(kind, p.reason(),
                        p.preemptorJobId(), p.preemptorAccount(), ratios, p.lostGpuSeconds(), true)));
                out.add(requeued(p.jobId(), now, "preempted by " + p.preemptorJobId() + ": " + p.reason()));
            }
            case Decision.Requeue q when ours(q.jobId()) -> {
                out.addAll(stopCommands(q.jobId(), stops, now));
                out.add(jobEvent(q.jobId(), JobState.WAITING, now, new JobLost(q.nodeId(), q.reason())));
                out.add(requeued(q.jobId(), now, "node " + q.nodeId() + " lost: " + q.reason()));
            }
            case Decision.ReleaseForDrain d when ours(d.jobId()) -> {
                out.addAll(stopCommands(d.jobId(), stops, now));
                out.add(jobEvent(d.jobId(), JobState.WAITING, now, new JobPreempted(PreemptionReason.DRAIN,
                        d.reason(), null, null, List.of(), d.lostGpuSeconds(), true)));
                out.add(requeued(d.jobId(), now, "node " + d.nodeId() + " drains: " + d.reason()));
            }
            case Decision.Reject j -> out.add(rejected(j.jobId(), JobState.REJECTED, now, j.reason(), null));
            case Decision.NodeDrained n -> out.add(new Output(Topics.NODE_STATUS.name(), n.nodeId(),
                    new NodeStatus(UUID.randomUUID().toString(), Instant.ofEpochMilli(now), n.nodeId(),
                            new NodeDrained(cluster))));
            default -> {
                // Reserve: visible in the queue snapshot's reasons, nothing to tell the nodes; and
                // nothing to say of a job not submitted here.
            }
        }
        return out;
    }

    private boolean ours(String jobId) {
        return facts.launch(jobId) != null;
    }

    /** One StartJob per replica (the agent's epoch, GPU indices, command, env), then JobPlaced. */
    private void placed(Decision.Place p, long now, List<Output> out) {
        EdgeJob.Launch launch = facts.launch(p.jobId());
        int attempt = facts.requeues(p.jobId()) + 1;
        List<GpuAssignment> assignments = new ArrayList<>();
        for (int i = 0; i < p.replicas().size(); i++) {
            ReplicaPlacement rp = p.replicas().get(i);
            long epoch = facts.agentEpoch(rp.nodeId());
            assignments.add(new GpuAssignment(rp.nodeId(), epoch, i, rp.gpuIndices()));
            out.add(nodeCommand(rp.nodeId(), now, new StartJob(p.jobId(), rp.nodeId(), epoch, i, p.replicas().size(),
                    rp.gpuIndices(), launch.command(), launch.env(), attempt - 1, p.account(), cluster,
                    schemaMode(p.chargeMode()))));
        }
        out.add(jobEvent(p.jobId(), JobState.RUNNING, now, new JobPlaced(cluster, p.account(), assignments,
                schemaMode(p.chargeMode()), Instant.ofEpochMilli(p.protectedUntilMillis()), attempt, p.reason(),
                facts.inDebugLane(p.jobId()))));
    }

    // ------------------------------------------------------------------ the edge's own verdicts

    /** A submission the core now holds (it waits), with its shape: a job's life reads from job-events alone. */
    Output accepted(Input.Submit s, ChargeMode mode) {
        return jobEvent(s.jobId(), JobState.WAITING, s.at(),
                new JobAccepted(s.budget(), cluster, schemaMode(mode), Instant.ofEpochMilli(s.submittedAt()),
                        s.replicas(), s.gpusPerReplica(), s.minRuntimeSeconds(), s.resumable(), s.priority(),
                        s.expectedDurationSeconds(), s.submitter()));
    }

    /** A refusal; {@code stateAfter} is the job's state (a duplicate id leaves the first job's as it is). */
    Output rejected(String jobId, JobState stateAfter, long at, String reason, String field) {
        return jobEvent(jobId, stateAfter, at, new JobRejected(reason, field));
    }

    Output completed(String jobId, long at, double chargedGpuSeconds) {
        return jobEvent(jobId, JobState.COMPLETED, at, new JobCompleted(chargedGpuSeconds));
    }

    /**
     * Every replica of a run we had stopped exited 0 by itself before its stop took effect: the job is
     * completed; {@code stops} are for a run placed again since (its replicas are not needed).
     */
    List<Output> completedBeforeItsStop(Input.Exited e, List<EdgeJob.Stop> stops, double chargedGpuSeconds) {
        List<Output> out = new ArrayList<>(stopCommands(e.jobId(), stops, e.at()));
        out.add(completed(e.jobId(), e.at(), chargedGpuSeconds));
        return out;
    }

    /** A replica exited non-zero on its own: the others are stopped and the job fails with the code. */
    List<Output> gangFailed(Input.Exited e, List<EdgeJob.Stop> stops) {
        List<Output> out = new ArrayList<>(stopCommands(e.jobId(), stops, e.at()));
        out.add(jobEvent(e.jobId(), JobState.FAILED, e.at(), new JobFailed("replica " + e.replicaIndex()
                + " on node " + e.nodeId() + " exited with code " + e.exitCode(), e.exitCode())));
        return out;
    }

    /** A cancel: StopJob(CANCELLED) to the running replicas, then the JobCancelled verdict naming who asked. */
    List<Output> cancelled(Input.Cancel c, List<EdgeJob.Stop> stops, boolean wasRunning) {
        List<Output> out = new ArrayList<>(stopCommands(c.jobId(), stops, c.at()));
        out.add(jobEvent(c.jobId(), JobState.CANCELLED, c.at(), new JobCancelled(c.requestedBy(), c.reason(), wasRunning)));
        return out;
    }

    /** StopJob to replicas a node runs that it should not (not assigned there, or fenced). */
    List<Output> strayStops(List<NodeLiveness.StrayReplica> strays, long at) {
        List<Output> out = new ArrayList<>();
        for (NodeLiveness.StrayReplica s : strays) {
            out.add(nodeCommand(s.nodeId(), at, new StopJob(s.jobId(), s.nodeId(), s.agentEpoch(), s.reason(),
                    stopGraceSeconds)));
        }
        return out;
    }

    /**
     * One record of each kind a placement writes, never sent: serialising them when a term starts fetches their
     * schema ids from the registry then, not in the step that places the first job (about a second of that step
     * at 1,024 nodes).
     */
    static List<Output> samples() {
        String id = "warm-up";
        return List.of(jobEvent(id, JobState.REJECTED, 0, new JobRejected(id, null)),
                nodeCommand(id, 0, new StopJob(id, id, 0L, dev.allot.schemas.StopReason.CANCELLED, 0)));
    }

    // ------------------------------------------------------------------ record builders

    private List<Output> stopCommands(String jobId, List<EdgeJob.Stop> stops, long at) {
        List<Output> out = new ArrayList<>(stops.size());
        for (EdgeJob.Stop s : stops) {
            out.add(nodeCommand(s.nodeId(), at, new StopJob(jobId, s.nodeId(), facts.agentEpoch(s.nodeId()),
                    s.reason(), graceSeconds(jobId, s.reason()))));
        }
        return out;
    }

    /**
     * The job's own checkpoint grace (capped) when the stop lets it run again later (a preemption, a
     * drain), so it can checkpoint; the default otherwise (a cancel, a failed gang, a fenced replica).
     */
    private int graceSeconds(String jobId, dev.allot.schemas.StopReason reason) {
        boolean resumesLater = reason == dev.allot.schemas.StopReason.PREEMPTED
                || reason == dev.allot.schemas.StopReason.DRAIN;
        EdgeJob.Launch launch = facts.launch(jobId);
        if (!resumesLater || launch == null || launch.checkpointGraceSeconds() == null) {
            return stopGraceSeconds;
        }
        return Math.clamp(launch.checkpointGraceSeconds(), 0, MAX_CHECKPOINT_GRACE_SECONDS);
    }

    private Output requeued(String jobId, long now, String reason) {
        return jobEvent(jobId, JobState.WAITING, now, new JobRequeued(Instant.ofEpochMilli(facts.queuedSince(jobId)),
                facts.requeues(jobId), reason));
    }

    private AccountRatio ratio(String account, double ratio) {
        if (account == null) {
            return new AccountRatio("", 0.0, 0.0, null);
        }
        AccountUsage u = facts.usage(account);
        return new AccountRatio(account, u.chargedGpuSeconds(), u.entitledGpuSeconds(), finite(ratio));
    }

    static Double finite(double d) {
        return Double.isNaN(d) || Double.isInfinite(d) ? null : d;
    }

    static dev.allot.schemas.ChargeMode schemaMode(ChargeMode mode) {
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
