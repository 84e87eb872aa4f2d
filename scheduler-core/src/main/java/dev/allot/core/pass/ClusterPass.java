package dev.allot.core.pass;

import dev.allot.core.Decision;
import dev.allot.core.cluster.Node;
import dev.allot.core.explain.ExplanationBook;
import dev.allot.core.explain.Explainer;
import dev.allot.core.explain.Hold;
import dev.allot.core.explain.ReasonFormat;
import dev.allot.core.ordering.DebugLane;
import dev.allot.core.ordering.LaneReserve;
import dev.allot.core.ordering.PassOrder;
import dev.allot.core.ordering.PassOrderBuilder;
import dev.allot.core.placement.GangFit;
import dev.allot.core.policy.AccountRanking;
import dev.allot.core.policy.SchedulingPolicy;
import dev.allot.core.preemption.Preemptor;
import dev.allot.core.reservation.BlockedJobReserver;
import dev.allot.core.reservation.Reservation;
import dev.allot.core.state.ClusterState;
import dev.allot.core.state.Job;
import dev.allot.core.state.WaitingShapes;
import java.util.List;

/**
 * One pass over one cluster, in order:
 * <ol>
 *   <li>Drain: release jobs on draining nodes whose contract allows it; report empty draining nodes.</li>
 *   <li>Drop reservations whose job no longer waits; hold the debug lane's nodes.</li>
 *   <li>Rank accounts with the policy; order the waiting jobs ({@link PassOrderBuilder}).</li>
 *   <li>Walk the order; for each job: (a) shape check, (b) admission, (c) place in free GPUs
 *       ({@link GangFit}), (d) preempt if allowed ({@link Preemptor}), (e) reserve nodes if it is
 *       among the top blocked jobs ({@link BlockedJobReserver}), (f) else record what holds it in
 *       the cluster's explanation book. Shortcuts that change no decision ({@link WalkShortcuts}):
 *       an account none of whose jobs could do anything now is skipped whole, and the walk stops
 *       once nothing later in the order could.</li>
 *   <li>Drop reservations not confirmed by this pass.</li>
 * </ol>
 * Internal.
 */
public final class ClusterPass {
    private final PassContext p;
    private final ClusterState cs;
    private final SchedulingPolicy policy;
    private final List<Decision> out;
    private final BlockedJobReserver reserver;
    private final WalkShortcuts shortcuts;
    private final boolean shortcutsOn;
    /** Built once per pass: a pass may hold thousands of jobs at the admission limit. */
    private final String admissionLimit;
    private AccountRanking ranking;

    private ClusterPass(PassContext p, List<Decision> out, boolean admitsEveryJob) {
        this.p = p;
        this.cs = p.cs;
        this.policy = p.policy;
        this.out = out;
        this.reserver = new BlockedJobReserver(p);
        this.shortcutsOn = p.config.walkShortcuts();
        this.shortcuts = new WalkShortcuts(p, reserver, shortcutsOn && admitsEveryJob);
        this.admissionLimit = "admission limit of policy " + policy.name();
    }

    /** Runs one pass; its decisions are appended to {@code out}, already applied to the cluster's state. */
    public static void run(PassContext p, List<Decision> out, boolean admitsEveryJob) {
        new ClusterPass(p, out, admitsEveryJob).run();
    }

    private void run() {
        drain(); // 1
        reserver.dropForJobsNotWaiting(); // 2
        reserver.keepHeld(out);
        DebugLane lane = policy.hasDebugLane() ? p.config.debugLane() : null;
        LaneReserve.hold(cs, lane, p.jobs);
        ranking = policy.rankAccounts(p); // 3
        PassOrder order = PassOrderBuilder.build(cs, ranking, policy.withinAccount(),
                lane != null ? lane.gpusPerAccount() : -1);
        cs.passStarted(ranking, order, p.t, p.passNo);
        walk(order); // 4
        reserver.dropUnconfirmed(); // 5
    }

    private void drain() {
        for (Node n : cs.nodes()) {
            if (!n.draining() || n.lost()) {
                continue;
            }
            for (String jobId : List.copyOf(n.jobs().keySet())) {
                Job j = p.jobs.get(jobId);
                if (p.preemptibleNow(j)) {
                    String why = "node " + n.nodeId() + " is draining and the job's contract allows release ("
                            + (j.unallocated() ? "unallocated"
                                    : "protected window ended " + ReasonFormat.time(j.protectedUntilMillis()))
                            + ")";
                    boolean keep = j.request().resumable();
                    ClusterState.Released released = cs.requeue(j, p.t, keep);
                    out.add(new Decision.ReleaseForDrain(jobId, j.account(), n.nodeId(), keep, why
                            + (keep ? "; requeued keeping its submit time" : "; requeued to restart from scratch"),
                            released.placement(), released.lostGpuSeconds()));
                }
            }
            if (n.jobs().isEmpty() && !n.drainedReported()) {
                n.markDrainedReported();
                out.add(new Decision.NodeDrained(n.nodeId(), cs.name, "node " + n.nodeId() + " is drained: no jobs left"));
            }
        }
    }

    private void walk(PassOrder order) {
        WalkShortcuts.Failures failed = shortcuts.failures;
        int position = 0;
        for (int g = 0; g < order.groupCount(); g++) {
            List<Job> group = order.group(g);
            String account = order.accountOf(g);
            WaitingShapes.AccountWaiting skipped = account == null ? null : shortcuts.accountHeld(order, account, group);
            if (skipped != null) {
                // Its place in the order is counted; the explainer derives the rest.
                order.skip(g, 0, position, cs.open.countsAtLeast(), p.unallocatedKeptOffOpenNodes());
                position += skipped.listed() - shortcuts.laneJobsOf(order, account);
                continue;
            }
            // Debug-lane jobs are walked out of rank order, so what they fail to find says nothing
            // about the jobs after them: they keep to their own preemption failure list.
            boolean lane = order.isLane(g);
            for (int idx = 0; idx < group.size(); idx++) {
                Job j = group.get(idx);
                if (!order.valid(j, g)) {
                    continue; // placed or cancelled since the order was built
                }
                position++;
                if (shortcutsOn && shortcuts.nothingLaterCanAct(position, lane)) {
                    // The rest wait for want of resources; the explainer derives their place.
                    order.stoppedAt(g, idx, position - 1, p.unallocatedKeptOffOpenNodes());
                    return;
                }
                if (visit(j, position, lane, failed) && shortcutsOn && account != null && !lane
                        && shortcuts.accountHeld(order, account, group) != null) {
                    // what it failed to get holds the rest of its account's jobs: skipped like a whole account
                    order.skip(g, idx + 1, position, cs.open.countsAtLeast(), p.unallocatedKeptOffOpenNodes());
                    for (int rest = idx + 1; rest < group.size(); rest++) {
                        position += order.valid(group.get(rest), g) ? 1 : 0;
                    }
                    break;
                }
            }
        }
    }

    /**
     * Step 4 for one job. True if it stays waiting after a full visit (so what failed may have
     * grown), false if it took the fast path or was placed.
     */
    private boolean visit(Job j, int position, boolean lane, WalkShortcuts.Failures failed) {
        ExplanationBook.Note note = cs.explanations.noteAt(j.waitingSlot()).walked(p.passNo, position);
        int replicas = j.request().replicas();
        int gpus = j.request().gpusPerReplica();
        boolean mayPreempt = p.mayPreempt(j);
        // allocated jobs that stay waiting without their shape among the preemption failures
        boolean notFailed = j.allocated() && (lane || !mayPreempt);
        // Fast path: a better-ranked job of a shape no larger found no free GPUs (with the same
        // backfill rights) and nothing to displace, and no reservation will move: this job is
        // held the same way. Keeps a pass over 10,000 blocked jobs cheap.
        if (!lane && shortcuts.heldLikeBetterRanked(j, mayPreempt)) {
            note.missingResource(cs.open.countAtLeast(gpus));
            if (notFailed) {
                failed.walkedNotFailed.add(gpus, replicas, 1);
            }
            return false;
        }
        // (a) shape
        int able = Math.min(cs.ableNodes(gpus), replicas);
        if (able < replicas) {
            note.held(Hold.NO_SUCH_SHAPE, Explainer.noSuchShape(replicas, gpus, cs.name, able));
            if (j.allocated()) {
                failed.walkedNotFailed.add(gpus, replicas, 1);
            }
            return true;
        }
        // (b) admission
        if (!policy.admits(j, p)) {
            note.held(Hold.ADMISSION_LIMIT, admissionLimit);
            if (j.allocated()) {
                failed.walkedNotFailed.add(gpus, replicas, 1);
            }
            return true;
        }
        Reservation own = cs.reservations.isEmpty() ? null : cs.reservations.of(j.jobId());
        // (c) free GPUs
        List<Node> fit = GangFit.fitFree(p, j, own);
        if (fit != null) {
            place(j, own, fit, position, "free GPUs");
            if (own != null) { // its nodes are open again: what failed before may fit now
                failed.free.clear();
                failed.freeWithBackfill.clear();
            }
            return false;
        }
        // (unallocated work kept off open nodes failed for its own reason: it says nothing of others)
        if (own == null && !lane && !p.unallocatedBarredFromOpenNodes(j)) {
            boolean backfill = !cs.reservations.isEmpty() && GangFit.mayBackfillAny(p, j);
            (backfill ? failed.freeWithBackfill : failed.free).add(replicas, gpus);
        }
        // (d) preemption
        FailedShapes preemptionFailed = lane ? failed.lanePreemption(j.accountId()) : failed.preemption(j.accountId());
        boolean holder = own != null && !lane && policy.reservationHoldersDisplace();
        if (mayPreempt && (holder || !preemptionFailed.dominates(replicas, gpus))) {
            if (!holder && !lane && shortcutsOn && shortcuts.searchWouldFail(j, preemptionFailed, replicas, gpus)) {
                // a search with no fewer victims on no fewer nodes failed: this one would too
            } else if (Preemptor.cannotDisplaceAnything(p, j, holder, preemptionFailed)) {
                if (!holder && !lane) {
                    shortcuts.preemptionFailed(j, 1, 1);
                }
            } else {
                Preemptor.Room room = Preemptor.makeRoom(p, j, holder, replicas, gpus, out);
                if (room != null) {
                    place(j, own, room.nodes(), position, "GPUs freed by preempting " + room.victims());
                    Preemptor.guard(p, j);
                    failed.free.clear(); // victims may free more than the preemptor takes
                    failed.freeWithBackfill.clear();
                    return false;
                }
                preemptionFailed.add(replicas, gpus);
                if (!holder && !lane) {
                    shortcuts.preemptionFailed(j, replicas, gpus);
                }
            }
        }
        // The nodes of a reservation that (e) would take over, held for a job ranked after this one
        // (a lane job is walked before every other), are its own: if they have room now it starts
        // there (it could not backfill them at (c) when their holder may not displace it; taking the
        // reservation over would start it a pass later)
        Reservation later = own == null && policy.reservesForBlockedJobs() ? reserver.takeover() : null;
        List<Node> onLater = later == null ? null : GangFit.fitFree(p, j, later);
        if (onLater != null) {
            place(j, later, onLater, position, "free GPUs held for job " + later.jobId() + ", ranked after it");
            failed.free.clear();
            failed.freeWithBackfill.clear();
            return false;
        }
        if (notFailed) { // it stays waiting for the rest of the pass
            failed.walkedNotFailed.add(gpus, replicas, 1);
        }
        // (e) reservation (not for lane jobs: they are small, and out of rank order)
        if (!lane && policy.reservesForBlockedJobs() && reserver.reserve(j, own, out)) {
            Reservation r = cs.reservations.of(j.jobId());
            note.held(Hold.WAITING_FOR_RESERVATION, replicas + " nodes with " + gpus + " free GPUs; reserved "
                    + r.nodeIds() + ", due " + Explainer.due(r.dueAtMillis()));
            note.reservedFor(j.jobId());
            return true;
        }
        heldForWantOfResources(j, note); // (f)
        return true;
    }

    /** (f) What holds a job that stays waiting after a full visit. */
    private void heldForWantOfResources(Job j, ExplanationBook.Note note) {
        int replicas = j.request().replicas();
        int gpus = j.request().gpusPerReplica();
        int openNodes = cs.open.countAtLeast(gpus);
        if (p.unallocatedBarredFromOpenNodes(j)) {
            note.held(Hold.MISSING_RESOURCE, Explainer.UNALLOCATED_KEPT_OFF);
            return;
        }
        if (openNodes < replicas) {
            int reservedNodes = 0;
            String blocker = null;
            for (Reservation r : cs.reservations.all()) {
                int withFree = cs.reservations.nodesWithFree(r, gpus, null);
                reservedNodes += withFree;
                blocker = blocker == null && withFree > 0 ? r.jobId() : blocker;
            }
            if (openNodes + reservedNodes >= replicas) {
                note.held(Hold.RESERVATION, "fits only on nodes reserved for job " + blocker
                        + " and would neither end nor be preemptible before the reservation is due");
                note.reservedFor(blocker);
                return;
            }
        }
        note.missingResource(openNodes);
    }

    /** Starts the job on {@code nodes} (its own reservation, if any, ends) and reports it. */
    private void place(Job j, Reservation own, List<Node> nodes, int position, String how) {
        if (own != null) {
            cs.reservations.drop(own);
        }
        cs.place(j, nodes, p.t, j.unallocated() || !policy.contractsProtect(), cs.inLaneGroup(j));
        p.placed(j);
        out.add(new Decision.Place(j.jobId(), j.account(), cs.name, j.placement(), j.chargeMode(),
                j.protectedUntilMillis(), p.reasons ? Explainer.placed(j, position, ranking, how, p.config.debugLane()) : ""));
    }
}
