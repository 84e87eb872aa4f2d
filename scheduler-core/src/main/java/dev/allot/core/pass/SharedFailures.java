package dev.allot.core.pass;

import dev.allot.core.placement.GangFit;
import dev.allot.core.reservation.Reservation;
import dev.allot.core.state.Job;
import dev.allot.core.state.WaitingShapes;

/**
 * Preemption failures shared by the accounts that may displace only unallocated work, and all of
 * it ({@link PassContext#displacesUnallocatedOnly}). Such accounts choose among the same victims,
 * so a search that failed for a job of one fails for a job of another of a shape no smaller on no
 * more nodes. Failures kept per account alone ({@link WalkShortcuts.Failures}) made the walk take
 * every such account to its own first failure: on BenchWorld about 6,800 jobs walked per
 * incremental pass, in 285 accounts, where this lets most accounts be skipped whole.
 *
 * <p>Nodes: two such jobs' eligible nodes differ only in the reservation one may backfill and the
 * other not, so failures are kept by that: list 1 for jobs that may backfill the cluster's one
 * reservation, list 0 for jobs that may not (or when none stands); a query of list 0 is answered by
 * both. Kept only once reservations are final and at most one stands, so the nodes a job may use
 * no longer change in the pass; dropped when the pass displaces anything, which frees GPUs and
 * changes who may displace whom. Between displacements the victims only grow fewer (a job placed
 * in the pass is no victim) and free GPUs only fewer, so a failure stays a failure.
 */
final class SharedFailures {
    private final PassContext p;
    private final FailedShapes[] byMask = {new FailedShapes(), new FailedShapes()};
    /** Per mask: 0 not asked yet, 1 some victim on a node such a job may use for one GPU, 2 none. */
    private final byte[] anyVictim = new byte[2];
    private int seen;

    SharedFailures(PassContext p) {
        this.p = p;
    }

    /** Drops what a displacement made stale. */
    private void fresh() {
        if (seen != p.displacements()) {
            byMask[0].clear();
            byMask[1].clear();
            anyVictim[0] = anyVictim[1] = 0;
            seen = p.displacements();
        }
    }

    /** Whether the job's account may take part (the caller has checked that reservations are final). */
    private boolean shares(Job j) {
        return p.cs.reservations.size() <= 1 && p.displacesUnallocatedOnly(j);
    }

    /** 1 if the job may backfill the one reservation, 0 if not or none stands, -1 if it holds it. */
    private int mask(Job j) {
        if (p.cs.reservations.isEmpty()) {
            return 0;
        }
        Reservation r = p.cs.reservations.all().iterator().next();
        if (r.jobId().equals(j.jobId())) {
            return -1;
        }
        return GangFit.mayBackfill(p, j, r) ? 1 : 0;
    }

    /**
     * 1 if some job of the account might backfill the one reservation (as {@link GangFit#mayBackfill},
     * from the account's shortest known duration and shortest minimum runtime; yes when unsure), else 0.
     */
    private int accountMask(WaitingShapes.AccountWaiting w) {
        if (p.cs.reservations.isEmpty()) {
            return 0;
        }
        Reservation r = p.cs.reservations.all().iterator().next();
        long left = r.dueAtMillis() - p.t;
        long duration = w.shortestDuration();
        if (duration >= 0 && duration <= left) {
            return 1;
        }
        long minRuntime = w.shortestMinRuntime();
        return minRuntime >= 0 && (!p.policy.contractsProtect() || minRuntime <= left) && p.holderMayPreempt(r) ? 1 : 0;
    }

    /** A search of the job for this shape (1 x 1: for anything at all) found nothing to displace. */
    void failed(Job j, int replicas, int gpus) {
        if (!shares(j)) {
            return;
        }
        int m = mask(j);
        if (m >= 0) {
            fresh();
            byMask[m].add(replicas, gpus);
        }
    }

    /** Whether a search of the job for this shape would find nothing: one sharing its victims, on no fewer nodes, failed. */
    boolean dominates(Job j, int replicas, int gpus) {
        if (!shares(j)) {
            return false;
        }
        int m = mask(j);
        if (m < 0) {
            return false;
        }
        fresh();
        return byMask[1].dominates(replicas, gpus) || m == 0 && byMask[0].dominates(replicas, gpus);
    }

    /**
     * Whether every shape of the account ({@code fewest}, see {@link FailedShapes#dominatesAll}) is
     * held by its own failures or, for jobs of {@code any}'s account, by the shared ones.
     */
    boolean dominatesAll(Job any, WaitingShapes.AccountWaiting w, FailedShapes own, int[] fewest) {
        if (!shares(any)) {
            return false;
        }
        int m = accountMask(w);
        fresh();
        for (int gpus = 0; gpus < fewest.length; gpus++) {
            int r = fewest[gpus];
            if (r > 0 && !own.dominates(r, gpus) && !byMask[1].dominates(r, gpus)
                    && !(m == 0 && byMask[0].dominates(r, gpus))) {
                return false;
            }
        }
        return true;
    }

    /**
     * Whether a full visit of the job, whose search {@link #dominates} says fails, would have found
     * no victim at all first ({@code Preemptor.cannotDisplaceAnything}: its account then records a
     * 1 x 1 failure instead of its shape). Asked once per kind of node access between displacements.
     */
    boolean nothingToDisplace(Job j) {
        int m = mask(j);
        fresh();
        if (anyVictim[m] == 0) {
            anyVictim[m] = p.anyDisplaceableVictim(j, GangFit.nodesFor(p, j, 1)) ? (byte) 1 : (byte) 2;
        }
        return anyVictim[m] == 2;
    }
}
