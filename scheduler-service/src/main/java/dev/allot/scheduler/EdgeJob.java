package dev.allot.scheduler;

import dev.allot.core.ReplicaPlacement;
import dev.allot.schemas.JobState;
import dev.allot.schemas.StopReason;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What only the edge knows of one job; the core has its scheduling state (waiting or running, its
 * placement, times, requeues), read through {@code core.job(id)}. Kept here: how to start it, which
 * replicas of the current run exited or were told to stop, the verdict the edge wrote, and what its
 * ended runs were charged.
 */
final class EdgeJob {

    /**
     * What a StartJob needs and the core does not keep: the command and environment as submitted; and
     * what its StopJobs need: the checkpoint grace the job declared (null: the scheduler's default).
     */
    record Launch(List<String> command, Map<String, String> env, Integer checkpointGraceSeconds) {
        Launch {
            command = List.copyOf(command);
            env = env == null ? Map.of() : Map.copyOf(env);
        }

        Launch(List<String> command, Map<String, String> env) {
            this(command, env, null);
        }
    }

    /** A replica to tell to stop, and why. */
    record Stop(String nodeId, StopReason reason) {
    }

    /** Null for a submission the edge rejected (the core never saw it). */
    final Launch launch;
    /** Nodes of the current run whose replica exited 0 (nothing to stop there). */
    private final Set<String> exitedOk = new HashSet<>();
    /** Nodes of replicas told to stop and not exited yet: their exits are expected, not verdicts. */
    private final Map<String, StopReason> stopping = new HashMap<>();
    /**
     * The verdict the edge wrote: COMPLETED, FAILED, CANCELLED, or REJECTED by the submission rules;
     * null while the core decides the job's state.
     */
    JobState verdict;
    /**
     * GPU-seconds the job's ended allocated runs were charged, for JobCompleted: the core charges
     * accounts, not jobs, and its releasing decisions do not say when the released run began.
     */
    private double chargedGpuSeconds;
    /** When the current allocated run began (its JobPlaced), -1 when none is being charged. */
    private long chargedSince = -1;
    /** When the last run was placed (charged or not), -1 before the first: a completed job's run time counts from it. */
    private long lastPlacedAt = -1;

    private EdgeJob(Launch launch, JobState verdict) {
        this.launch = launch;
        this.verdict = verdict;
    }

    static EdgeJob accepted(Launch launch) {
        return new EdgeJob(launch, null);
    }

    static EdgeJob rejected() {
        return new EdgeJob(null, JobState.REJECTED);
    }

    /** A new run is placed; {@code charged}: it is an allocated run, charged from {@code at}. */
    void placed(List<ReplicaPlacement> replicas, boolean charged, long at) {
        exitedOk.clear();
        for (ReplicaPlacement rp : replicas) {
            // A stop still pending there belongs to an earlier run; its exit says stopped=true and is ignored.
            stopping.remove(rp.nodeId());
        }
        chargedSince = charged ? at : -1;
        lastPlacedAt = at;
    }

    /**
     * How long the job ran when it completes at {@code at}: from its last placement (for a job that finished
     * after its stop and was placed again since, from the new placement: short, and rare). -1 if never placed.
     */
    long ranMillis(long at) {
        return lastPlacedAt < 0 ? -1 : Math.max(0, at - lastPlacedAt);
    }

    /**
     * The replicas of {@code placement} that have not exited are told to stop (on {@code lostNode},
     * if any, as fenced) and remembered as stopping.
     *
     * @return the stops to write
     */
    List<Stop> stop(List<ReplicaPlacement> placement, StopReason reason, String lostNode) {
        List<Stop> stops = new ArrayList<>();
        for (ReplicaPlacement rp : placement) {
            if (exitedOk.contains(rp.nodeId())) {
                continue;
            }
            StopReason why = rp.nodeId().equals(lostNode) ? StopReason.FENCED : reason;
            stopping.put(rp.nodeId(), why);
            stops.add(new Stop(rp.nodeId(), why));
        }
        return stops;
    }

    /** The current run ended at {@code at}: an allocated run's GPU-seconds are added to the job's charge. */
    void runEnded(int gpus, long at) {
        if (chargedSince >= 0) {
            chargedGpuSeconds += gpus * Math.max(0, at - chargedSince) / 1000.0;
            chargedSince = -1;
        }
    }

    /** The replica on {@code nodeId} exited 0; returns how many of the run's replicas have. */
    int exitedOk(String nodeId) {
        exitedOk.add(nodeId);
        return exitedOk.size();
    }

    /** An exit from {@code nodeId} the edge asked for: consumes the pending stop, true if there was one. */
    boolean stopExpected(String nodeId) {
        return stopping.remove(nodeId) != null;
    }

    boolean stopping(String nodeId) {
        return stopping.containsKey(nodeId);
    }

    double chargedGpuSeconds() {
        return chargedGpuSeconds;
    }
}
