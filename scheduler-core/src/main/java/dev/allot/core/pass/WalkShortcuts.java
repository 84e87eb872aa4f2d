package dev.allot.core.pass;

import dev.allot.core.ordering.PassOrder;
import dev.allot.core.placement.GangFit;
import dev.allot.core.reservation.BlockedJobReserver;
import dev.allot.core.reservation.Reservation;
import dev.allot.core.state.ClusterState;
import dev.allot.core.state.Job;
import dev.allot.core.state.ShapeCounts;
import dev.allot.core.state.WaitingShapes;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;

/**
 * The walk's shortcuts, which change no decision ({@code SchedulerConfig.walkShortcuts()} turns
 * them off to prove it): a job held like a better-ranked job of a shape no larger, an account
 * none of whose jobs could act (skipped whole), and the early stop once nothing later in the
 * order could act. All rest on the shapes that already failed in this pass ({@link Failures}).
 */
final class WalkShortcuts {

    /** What failed so far in this pass, by shape. */
    static final class Failures {
        /**
         * Shapes that found nothing to displace, per account id of the job that failed: who may be
         * displaced depends on the preemptor's account (where its path meets the victim's, the
         * no-thrash guard), so one account's failure says nothing of another's.
         */
        private final FailedShapes[] preemption;
        /** Shapes that found no free GPUs, without and with backfill rights on reserved nodes. */
        final FailedShapes free = new FailedShapes();
        final FailedShapes freeWithBackfill = new FailedShapes();
        /** The lane group is in rank order among itself, so its jobs share their own failure lists. */
        private final FailedShapes[] lanePreemption;
        /**
         * Allocated jobs walked that stay waiting without their shape among the preemption failures
         * (lane jobs, jobs that may not preempt or never got that far).
         */
        final ShapeCounts walkedNotFailed = new ShapeCounts();

        Failures(int accounts) {
            preemption = new FailedShapes[accounts];
            lanePreemption = new FailedShapes[accounts];
        }

        FailedShapes preemption(int accountId) {
            return of(preemption, accountId);
        }

        FailedShapes lanePreemption(int accountId) {
            return of(lanePreemption, accountId);
        }

        private static FailedShapes of(FailedShapes[] lists, int accountId) {
            if (lists[accountId] == null) {
                lists[accountId] = new FailedShapes();
            }
            return lists[accountId];
        }
    }

    final Failures failures;
    /** Failures shared among accounts by what they may displace. */
    final SharedFailures shared;
    private final PassContext p;
    private final ClusterState cs;
    private final BlockedJobReserver reserver;
    /** Whether whole accounts may be skipped (shortcuts on, and the policy admits every job). */
    private final boolean skipAccounts;
    /** Once true it stays true: only blocked jobs ranked first move reservations. */
    private boolean reservationsFinal;
    private int nextCheck = 1;
    /** The accounts with waiting work at the early stop's first check, and how far the checks got. */
    private List<? extends java.util.Map.Entry<String, WaitingShapes.AccountWaiting>> displacers;
    private int displacerCursor;
    private int displacersSeen;
    /** Lane jobs still waiting, per account (built on the first skip check). */
    private HashMap<String, ShapeCounts> laneWaiting;

    WalkShortcuts(PassContext p, BlockedJobReserver reserver, boolean skipAccounts) {
        this.p = p;
        this.cs = p.cs;
        this.reserver = reserver;
        this.skipAccounts = skipAccounts;
        this.failures = new Failures(p.jobs.accountCount());
        this.shared = new SharedFailures(p);
    }

    /** A preemption search of {@code j} for this shape (1 x 1: for anything) failed: shared if its account shares. */
    void preemptionFailed(Job j, int replicas, int gpus) {
        if (reservationsFinal()) {
            shared.failed(j, replicas, gpus);
        }
    }

    private boolean reservationsFinal() {
        if (!reservationsFinal) {
            reservationsFinal = reserver.reservationsFinal();
        }
        return reservationsFinal;
    }

    /**
     * A job of shape no larger than one that already failed, with the same backfill rights, and
     * nothing to gain from preemption (a better-ranked job of its account, or of an account sharing
     * its victims, failed to displace for a shape no larger), and admitted: held for want of
     * resources like it. When only the shared failures say so, the failure a full visit would have
     * recorded for its account is recorded, so the account's own failures stay what they would be.
     */
    boolean heldLikeBetterRanked(Job j, boolean mayPreempt) {
        if (!reservationsFinal()) {
            return false;
        }
        int replicas = j.request().replicas();
        int gpus = j.request().gpusPerReplica();
        if (j.unallocated() && (cs.laneNodes.fits(gpus) || p.unallocatedBarredFromOpenNodes(j))) {
            return false;
        }
        if (cs.ableNodes(gpus) < replicas) {
            return false; // no such shape: its visit's shape check says so
        }
        FailedShapes own = failures.preemption(j.accountId());
        boolean byShared = false;
        if (mayPreempt && !own.dominates(replicas, gpus) && mayDisplaceAtAll(j)) {
            if (!shared.dominates(j, replicas, gpus)) {
                return false;
            }
            byShared = true;
        }
        if (!freeHeld(j, replicas, gpus) || !p.policy.admits(j, p)) {
            return false;
        }
        if (byShared) {
            if (shared.nothingToDisplace(j)) {
                own.add(1, 1);
            } else {
                own.add(replicas, gpus);
            }
        }
        return true;
    }

    /**
     * In a full visit, before its victim search: whether the shared failures say the search would
     * fail (for a job that could not take the fast path, say for free GPUs it might still find).
     * If so, what the search would have recorded for its account is recorded: 1 x 1 if it would
     * have found no victim at all.
     */
    boolean searchWouldFail(Job j, FailedShapes own, int replicas, int gpus) {
        if (!reservationsFinal() || !shared.dominates(j, replicas, gpus)) {
            return false;
        }
        if (shared.nothingToDisplace(j)) {
            own.add(1, 1);
            shared.failed(j, 1, 1);
        } else {
            own.add(replicas, gpus);
        }
        return true;
    }

    /** Whether a better-ranked shape no larger found no free GPUs with the same backfill rights. */
    private boolean freeHeld(Job j, int replicas, int gpus) {
        boolean plain = failures.free.dominates(replicas, gpus);
        boolean withBackfill = cs.reservations.isEmpty() ? plain : failures.freeWithBackfill.dominates(replicas, gpus);
        if (plain == withBackfill) {
            return plain;
        }
        return GangFit.mayBackfillAny(p, j) ? withBackfill : plain;
    }

    /**
     * The account's waiting jobs if none of them could do anything now (each would take the fast
     * path): the walk skips its list whole. Null if it must be walked.
     */
    WaitingShapes.AccountWaiting accountHeld(PassOrder order, String account, List<Job> list) {
        if (!skipAccounts || !reservationsFinal()) {
            return null;
        }
        WaitingShapes.AccountWaiting w = cs.shapes.of(account);
        if (w == null) {
            return null;
        }
        ShapeCounts inLane = laneWaiting(order).get(account);
        return accountHeld(w, list, inLane) ? w : null;
    }

    /** Lane jobs of the account still waiting: in its list too, but walked in the lane. */
    int laneJobsOf(PassOrder order, String account) {
        ShapeCounts inLane = laneWaiting(order).get(account);
        return inLane == null ? 0 : inLane.jobs();
    }

    private HashMap<String, ShapeCounts> laneWaiting(PassOrder order) {
        if (laneWaiting == null) {
            laneWaiting = new HashMap<>();
            for (Job j : order.laneJobs()) {
                if (j.waiting()) {
                    laneWaiting.computeIfAbsent(j.account(), a -> new ShapeCounts())
                            .add(j.request().gpusPerReplica(), j.request().replicas(), 1);
                }
            }
        }
        return laneWaiting;
    }

    /**
     * Whether every waiting job of the account would take the fast path now: each shape (the
     * fewest replicas per GPU count decide) already failed to find free GPUs, with backfill rights
     * too while reservations stand, and to preempt; no unallocated one fits a held node.
     */
    private boolean accountHeld(WaitingShapes.AccountWaiting w, List<Job> list, ShapeCounts lane) {
        // cheapest first: its allocated shapes (lane jobs were walked already; only if they are in the way
        // is it worth counting them out), then unallocated ones, then backfill rights
        int[] allocated = w.fewestAllocated();
        Job first = list.get(0);
        if (!allocatedHeld(first, w, allocated)) {
            if (lane == null) {
                return false;
            }
            allocated = w.allocated().fewestReplicas(lane);
            if (!allocatedHeld(first, w, allocated)) {
                return false;
            }
        }
        if (!w.unallocated().isEmpty() && cs.laneNodes.fits(w.unallocated().fewestGpus())) {
            return false;
        }
        // Unallocated work kept off open nodes may use held nodes (none fits) and reserved nodes it
        // ends before the due time (GangFit.mayBackfill); short of that it is held whatever failed.
        boolean keptOff = p.unallocatedKeptOffOpenNodes();
        long shortestDuration = w.shortestDuration();
        // (one of no such shape is walked: its visit says so)
        if (keptOff && !w.unallocated().isEmpty() && w.unallocated().anyWiderThan(cs::ableNodes)) {
            return false;
        }
        if (keptOff && !w.unallocated().isEmpty() && shortestDuration >= 0) {
            for (Reservation r : cs.reservations.all()) {
                if (shortestDuration <= r.dueAtMillis() - p.t) {
                    return false;
                }
            }
        }
        int[] unallocated = keptOff ? new int[0] : w.fewestUnallocated();
        if (cs.reservations.isEmpty()) {
            return failures.free.dominatesAll(unallocated);
        }
        // Which of its jobs might backfill a reservation (see GangFit.mayBackfill)? Those are held by
        // the backfill failures, the others by the plain ones; where it is not sure, both must hold.
        boolean allocatedBackfill = false;
        boolean unallocatedBackfill = false;
        boolean unallocatedAllBackfill = false; // a reservation of another account's job they all may use
        long shortestMinRuntime = w.shortestMinRuntime();
        for (Reservation r : cs.reservations.all()) {
            long left = r.dueAtMillis() - p.t;
            if (shortestDuration >= 0 && shortestDuration <= left) {
                allocatedBackfill = unallocatedBackfill = true;
                break;
            }
            Job holder = p.holder(r);
            if (p.holderMayPreempt(r)) {
                unallocatedBackfill = !keptOff;
                unallocatedAllBackfill |= holder.accountId() != list.get(0).accountId();
                allocatedBackfill |= shortestMinRuntime >= 0
                        && (!p.policy.contractsProtect() || shortestMinRuntime <= left)
                        && (p.displaceable(holder, list.get(0)) || p.displaceableByHolder(holder, list.get(0), false));
            }
        }
        return (!allocatedBackfill || failures.freeWithBackfill.dominatesAll(allocated))
                && (unallocatedAllBackfill || failures.free.dominatesAll(unallocated))
                && (!unallocatedBackfill || failures.freeWithBackfill.dominatesAll(unallocated));
    }

    /** Whether the account of {@code any} can neither place nor displace for any of these shapes. */
    private boolean allocatedHeld(Job any, WaitingShapes.AccountWaiting w, int[] fewest) {
        return failures.free.dominatesAll(fewest) && !mayStillDisplace(any, w, fewest);
    }

    /**
     * Whether a job of {@code any}'s account with one of these shapes might still displace something
     * in this pass (asked by account: {@code any} need not be allocated): not if each shape failed
     * for the account, or for an account sharing its victims on no fewer nodes.
     */
    private boolean mayStillDisplace(Job any, WaitingShapes.AccountWaiting w, int[] fewest) {
        if (!p.policy.preempts()) {
            return false;
        }
        FailedShapes own = failures.preemption(any.accountId());
        return !own.dominatesAll(fewest) && mayDisplaceAtAll(any)
                && !(reservationsFinal() && shared.dominatesAll(any, w, own, fewest));
    }

    /** Whether anything is preemptible that {@code any}'s account may displace (asked by account). */
    private boolean mayDisplaceAtAll(Job any) {
        return !p.victims().nothingPreemptible() && p.mayDisplaceAnyone(any);
    }

    private static Job anyWaiting(List<Job> list) {
        if (list != null) {
            for (Job j : list) {
                if (j.waiting()) {
                    return j;
                }
            }
        }
        return null;
    }

    /**
     * The early stop, checked every 64 jobs: no free GPU anywhere that a later job could use, a
     * better-ranked job found nothing to displace, and every reservation is held. The rest wait
     * for want of resources.
     */
    boolean nothingLaterCanAct(int position, boolean laneAhead) {
        if (position < nextCheck) {
            return false;
        }
        nextCheck = position + 64;
        // free GPUs on open nodes matter only if some waiting gang fits them by shape
        if (cs.open.freeGpus() > 0 && cs.shapes.all().anyFits(cs.open::countAtLeast)) {
            return false;
        }
        // held nodes: lane jobs may still land there, and past the lane group unallocated work that
        // fits on them alone (open nodes have no room left for any waiting job)
        int heldMaxFree = cs.laneNodes.maxFree();
        if (heldMaxFree > 0 && (laneAhead || cs.shapes.unallocated().anyFitsIn(heldMaxFree, cs.laneNodes.withFree()))) {
            return false;
        }
        for (Reservation r : cs.reservations.all()) {
            if (!reserver.confirmed(r.jobId())) {
                return false;
            }
            // free GPUs on reserved nodes matter only to jobs that may backfill them (conservatively, see
            // GangFit.mayBackfill: jobs with a known duration; if the holder may preempt, unallocated jobs
            // small enough and jobs whose protection ends in time)
            int free = cs.reservations.maxFree(r);
            if (free > 0 && cs.shapes.mayHaveBackfill(free, r.dueAtMillis() - p.t, p.holderMayPreempt(r))) {
                return false;
            }
        }
        if (reserver.roomForMore()) {
            return false;
        }
        // every waiting job that may preempt has a shape that already failed to for its account, or its
        // account may displace no one (or there is nothing to take)
        if (!p.policy.preempts() || p.victims().nothingPreemptible()) {
            return true;
        }
        // Accounts found unable to displace stay so for the pass (their failures only grow, and what
        // they may displace only shrinks), so each check resumes where the last one stopped; a
        // preemption (which may lower an account's running GPUs) starts it over.
        if (displacers == null || displacersSeen != p.displacements()) {
            displacers = new ArrayList<>(cs.shapes.accounts());
            displacersSeen = p.displacements();
            displacerCursor = 0;
        }
        for (; displacerCursor < displacers.size(); displacerCursor++) {
            var e = displacers.get(displacerCursor);
            WaitingShapes.AccountWaiting w = e.getValue();
            if (w.allocated().isEmpty()) {
                continue;
            }
            Job any = anyWaiting(cs.queues.listOf(e.getKey()));
            if (any == null || mayStillDisplace(any, w, w.fewestAllocated())) {
                return false;
            }
        }
        return true;
    }
}
