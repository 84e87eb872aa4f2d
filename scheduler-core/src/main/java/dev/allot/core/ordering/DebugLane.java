package dev.allot.core.ordering;

import dev.allot.core.JobRequest;

/**
 * The debug lane: a bounded exception to Fair Tree order so that a researcher's short test run
 * starts within seconds even when the cluster is two to three times over-subscribed and the
 * team's account ranks last. Rules (numbered as in the README; the core applies them each pass):
 * <ol>
 *   <li>A waiting job has the debug shape when it is allocated with a minimum runtime of at most
 *       {@code maxMinRuntimeMillis} (15 min) and its whole gang holds at most {@code maxGpus}
 *       GPUs.</li>
 *   <li>Per account, debug-shape jobs join the lane in the account's own order until the next one
 *       would take the GPUs of its running lane jobs past {@code gpusPerAccount}; the rest
 *       wait in the normal order.</li>
 *   <li>Lane jobs are walked first, among themselves by account rank and then the within-account
 *       rule.</li>
 *   <li>Nothing else changes for them: lane jobs are charged like any allocated job (they raise
 *       their account's ratio), are protected only for their short minimum runtime, and may
 *       displace only what any job of their account may displace.</li>
 *   <li>Nodes are held for the lane: as many as its demand needs plus one spare, at most one live
 *       node in {@code reserveOneNodeIn} (the nodes with the most GPUs free or held by lane and
 *       unallocated work, then the highest id): only lane jobs and
 *       unallocated work are placed there, and only lane jobs preempt there. Without it the
 *       debug jobs of the account ranked last would find nothing they may displace on a full
 *       cluster. Unallocated work keeps the held GPUs busy while no debug job needs them.</li>
 * </ol>
 * Gaming it buys little: at most {@code gpusPerAccount} GPUs per account, protected for at most
 * 15 minutes, all charged. {@link #off()} disables the lane.
 */
public record DebugLane(long maxMinRuntimeMillis, int maxGpus, int gpusPerAccount, int reserveOneNodeIn) {

    public static final long MINUTE = 60_000L;

    public DebugLane {
        if (maxMinRuntimeMillis < 0 || maxGpus < 0 || gpusPerAccount < 0 || reserveOneNodeIn < 0) {
            throw new IllegalArgumentException("debug lane bounds must not be negative");
        }
    }

    /** 15 minutes, up to 8 GPUs per job, up to 8 GPUs per account at a time, one node in 12 held. */
    public static DebugLane defaults() {
        return new DebugLane(15 * MINUTE, 8, 8, 12);
    }

    public static DebugLane off() {
        return new DebugLane(0, 0, 0, 0);
    }

    /** Rule 5: how many of a cluster's live nodes the lane may hold at most (0 below {@code reserveOneNodeIn} nodes). */
    public int reserveNodes(int liveNodes) {
        return enabled() && reserveOneNodeIn > 0 ? liveNodes / reserveOneNodeIn : 0;
    }

    public boolean enabled() {
        return gpusPerAccount > 0 && maxGpus > 0;
    }

    /** Rule 1. */
    public boolean hasDebugShape(JobRequest r) {
        long total = (long) r.replicas() * r.gpusPerReplica();
        return enabled() && r.minRuntimeMillis() > 0 && r.minRuntimeMillis() <= maxMinRuntimeMillis
                && total <= maxGpus && total <= gpusPerAccount;
    }
}
