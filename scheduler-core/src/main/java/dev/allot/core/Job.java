package dev.allot.core;

import dev.allot.core.cluster.Node;
import dev.allot.core.contract.Contract;
import dev.allot.core.explain.Hold;
import java.util.List;

/** The core's mutable record of a job. Exposed only as {@link JobView}. */
final class Job implements JobView {
    final JobRequest request;
    final ChargeMode mode;
    final long seq;
    JobState state = JobState.WAITING;
    long queuedSince;
    long placedAt = -1;
    long protectedUntil = -1;
    long lastCheckpoint = -1;
    List<ReplicaPlacement> placement = List.of();
    int requeues;
    String rejection;

    // What the last pass saw: the explanation of a waiting job.
    int position;
    Hold hold = Hold.NOT_YET_SCHEDULED;
    String missing = "";
    String reservedFor;
    long passAt = -1;
    long passNo = -1;
    /** Free open nodes of the right size seen by the pass that held it for want of resources. */
    int openNodesSeen;
    int accountId;
    /** Waiting and not yet merged into its cluster's cached order. */
    boolean arrived;
    /** The account list this job sits in (null after it re-arrived). */
    List<Job> listedIn;
    /** Scratch: the pass (by counter) in which the job was placed. */
    long placedInPass = -1;
    /** Cache of {@link ClusterState#nodeIndices}: each replica's node position, for this placement and node array. */
    int[] nodeIndices;
    List<ReplicaPlacement> nodeIndicesOf;
    Node[] nodeIndicesIn;
    /** Scratch: the pass (by counter) in which {@link #mayPreemptThen} was found, as a reservation holder. */
    long mayPreemptPass = -1;
    boolean mayPreemptThen;
    /** Debug lane rule 1, fixed at submit. */
    boolean debugShape;
    /** Running as a lane job (its GPUs count against its account's lane bound). */
    boolean inLane;
    /** Counted by the cluster's {@link PreemptibleIndex} (running and preemptible now). */
    boolean preemptibleCounted;
    /** The pass order whose lane group holds this job (its entry in its account's group is skipped). */
    PassOrder laneOf;

    Job(JobRequest request, long seq) {
        this.request = request;
        this.mode = Contract.chargeMode(request.minRuntimeMillis());
        this.seq = seq;
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

    @Override
    public String toString() {
        return request.jobId() + "[" + state + "]";
    }
}
