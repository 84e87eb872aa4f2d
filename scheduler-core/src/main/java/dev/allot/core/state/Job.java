package dev.allot.core.state;

import dev.allot.core.ChargeMode;
import dev.allot.core.JobRequest;
import dev.allot.core.JobState;
import dev.allot.core.JobView;
import dev.allot.core.ReplicaPlacement;
import dev.allot.core.contract.Contract;
import java.util.List;

/**
 * The core's record of a job: its facts (request, state, current placement and its times).
 * Internal: exposed outside the core only as {@link JobView}. Changed only by {@link ClusterState}
 * (and the submit / checkpoint events); what a pass found about it lives in the pass's context
 * and the cluster's explanation book, not here.
 */
public final class Job implements JobView {
    final JobRequest request;
    final ChargeMode mode;
    final long seq;
    /** Dense id of the account (given at submit), for array-indexed per-pass memos. */
    final int accountId;
    /** Debug lane rule 1, fixed at submit. */
    final boolean debugShape;
    JobState state = JobState.WAITING;
    long queuedSince;
    long placedAt = -1;
    long protectedUntil = -1;
    long lastCheckpoint = -1;
    /** Placed by displacing others: not displaced itself before this (no thrashing); -1 otherwise. */
    long guardedUntil = -1;
    List<ReplicaPlacement> placement = List.of();
    int requeues;
    /** Running as a lane job (its GPUs count against its account's lane bound). */
    boolean inLane;
    /** Waiting and not yet merged into its account's sorted list ({@link AccountQueues}). */
    boolean arrived;
    /** The account list of {@link AccountQueues} this job sits in (null after it re-arrived). */
    List<Job> listedIn;
    /** Its slot in the cluster's explanation book while waiting, else -1. */
    int waitingSlot = -1;

    public Job(JobRequest request, long seq, int accountId, boolean debugShape) {
        this.request = request;
        this.mode = Contract.chargeMode(request.minRuntimeMillis());
        this.seq = seq;
        this.accountId = accountId;
        this.debugShape = debugShape;
        this.queuedSince = request.submitTimeMillis();
    }

    @Override
    public JobRequest request() {
        return request;
    }

    @Override
    public ChargeMode chargeMode() {
        return mode;
    }

    @Override
    public JobState state() {
        return state;
    }

    @Override
    public long queuedSinceMillis() {
        return queuedSince;
    }

    @Override
    public long placedAtMillis() {
        return placedAt;
    }

    @Override
    public long protectedUntilMillis() {
        return protectedUntil;
    }

    /** Until when the job, placed by displacing others, may not be displaced itself (-1: not guarded). */
    public long guardedUntilMillis() {
        return guardedUntil;
    }

    @Override
    public long lastCheckpointMillis() {
        return lastCheckpoint;
    }

    @Override
    public List<ReplicaPlacement> placement() {
        return placement;
    }

    @Override
    public int requeues() {
        return requeues;
    }

    public long seq() {
        return seq;
    }

    public int accountId() {
        return accountId;
    }

    public boolean allocated() {
        return mode == ChargeMode.ALLOCATED;
    }

    public boolean unallocated() {
        return mode == ChargeMode.UNALLOCATED;
    }

    public boolean waiting() {
        return state == JobState.WAITING;
    }

    public boolean running() {
        return state == JobState.RUNNING;
    }

    public boolean debugShape() {
        return debugShape;
    }

    /** Running as a debug-lane job. */
    public boolean inLane() {
        return inLane;
    }

    @Override
    public boolean inDebugLane() {
        return inLane;
    }

    /** The account list of {@link AccountQueues} this waiting job is filed in, or null until the next pass files it. */
    public List<Job> listedIn() {
        return listedIn;
    }

    /** Its slot in its cluster's explanation book while it waits, else -1. */
    public int waitingSlot() {
        return waitingSlot;
    }

    /** Invalid at submit: rejected for good (the reason goes out in the Reject decision). */
    public void reject() {
        state = JobState.REJECTED;
    }

    /** The running job wrote a checkpoint at {@code t}: work since then is what a preemption would lose. */
    public void checkpointed(long t) {
        if (state == JobState.RUNNING) {
            lastCheckpoint = Math.max(lastCheckpoint, t);
        }
    }

    /** GPU-seconds a release at {@code t} throws away: since the last checkpoint, or the whole run if not resumable. */
    public double workLostAt(long t) {
        long since = request.resumable() ? lastCheckpoint : placedAt;
        return since < 0 ? 0 : gpus() * Math.max(0, t - since) / 1000.0;
    }

    @Override
    public String toString() {
        return request.jobId() + "[" + state + "]";
    }
}
