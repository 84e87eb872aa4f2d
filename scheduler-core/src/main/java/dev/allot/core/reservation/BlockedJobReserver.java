package dev.allot.core.reservation;

import dev.allot.core.Decision;
import dev.allot.core.cluster.Node;
import dev.allot.core.explain.Explainer;
import dev.allot.core.pass.PassContext;
import dev.allot.core.state.Job;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The reservation rules of one pass: the first-ranked blocked jobs (up to {@code
 * maxReservationsPerCluster}) get the nodes that free up soonest ({@link ReservationPlanner}),
 * keep them while they stay blocked and ranked first, and lose them when they start, leave or
 * are passed by a better-ranked blocked job. Made for one pass.
 */
public final class BlockedJobReserver {
    private final PassContext p;
    private final ReservationBook book;
    private final int max;
    /** Holders confirmed by this pass (walked, still blocked, reservation kept or made). */
    private final HashSet<String> confirmed = new HashSet<>();
    /** Held reservations kept at the pass's start (see {@link #keepHeld}), confirmed when their holder is walked. */
    private final HashSet<String> kept = new HashSet<>();
    /**
     * A blocked job found every slot held by a job ranked after it (held reservations). No job further
     * down this pass makes a new reservation then: a holder that starts in this pass frees its slot for
     * that better-ranked job at the next pass. Otherwise a lower-ranked job would take it and be held
     * in turn, and so on: a cluster kept full by 1-2 GPU jobs starved an 8 x 8 job (ReservationTest),
     * and one team's jobs passed a node's slot among themselves while the other team ranked first
     * (WhatIfTest).
     */
    private boolean refusedForRoom;

    public BlockedJobReserver(PassContext p) {
        this.p = p;
        this.book = p.cs.reservations;
        this.max = p.config.maxReservationsPerCluster();
    }

    /** Pass step 2: reservations of jobs that no longer wait go. */
    public void dropForJobsNotWaiting() {
        for (Reservation r : List.copyOf(book.all())) {
            Job rj = p.jobs.get(r.jobId());
            if (rj == null || !rj.waiting()) {
                book.drop(r);
            }
        }
    }

    /**
     * Whether the reservation is held by its job until it starts: its holder may displace work on its
     * nodes (the policy's reservation right), so the nodes will be its own within the longest
     * protected window. A better-ranked blocked job does not take it over, and it stands whether or
     * not its holder is walked; it goes when the holder starts or leaves the queue. Only a gang's
     * reservation of several nodes, which must free up together, is held: a one-node job needs one
     * node's end, which comes soon, so its reservation keeps following the ranking (held, the next
     * job's order was fixed one job ahead: a team given 9 times the share still ran second).
     */
    public boolean held(Reservation r) {
        return p.config.goodput().heldReservations() && r.nodeIds().size() > 1 && p.policy.reservationHoldersDisplace()
                && p.holderMayPreempt(r);
    }

    /**
     * Pass step 2: each held reservation keeps its nodes and gets its due time anew from them; if its
     * nodes are no longer all there, or they would not be ready within the longest protected window
     * (work there that its holder may not displace after all) while other nodes would be ready
     * sooner, it is planned anew.
     */
    public void keepHeld(List<Decision> out) {
        if (!p.config.goodput().heldReservations()) {
            return;
        }
        for (Reservation r : List.copyOf(book.all())) {
            if (!held(r)) {
                continue;
            }
            Job j = p.holder(r);
            int gpus = j.request().gpusPerReplica();
            Optional<ReservationPlanner.Plan> own = planOn(j, r.nodeIds());
            long soon = p.t + p.config.maxMinRuntimeMillis();
            if (own.isPresent() && own.get().dueAtMillis() <= soon) {
                book.redue(r, own.get().dueAtMillis());
                kept.add(j.jobId());
                continue;
            }
            book.drop(r);
            ArrayList<ReservationPlanner.NodeOutlook> outlooks = new ArrayList<>();
            for (Node n : p.cs.nodes()) {
                if (n.available() && n.reservedFor() == null && !n.debugReserve() && n.gpus() >= gpus) {
                    outlooks.add(outlook(j, n));
                }
            }
            Optional<ReservationPlanner.Plan> fresh = ReservationPlanner.plan(j.request().replicas(), gpus, p.t, outlooks);
            // other nodes only if they keep the promise: between two sets that both miss it the
            // soonest changes with every pass (ratios move, work lands on the nodes let go), and a
            // holder that moves each time gives up what its nodes freed and never starts
            Optional<ReservationPlanner.Plan> best = own.isPresent() && (fresh.isEmpty()
                    || fresh.get().dueAtMillis() > soon || own.get().dueAtMillis() <= fresh.get().dueAtMillis()) ? own : fresh;
            if (best == own && own.isPresent()) {
                book.add(new Reservation(j.jobId(), p.cs.name, r.nodeIds(), own.get().dueAtMillis()));
                kept.add(j.jobId());
            } else if (best.isPresent()) {
                Reservation moved = new Reservation(j.jobId(), p.cs.name, best.get().nodeIds(), best.get().dueAtMillis());
                book.add(moved);
                kept.add(j.jobId());
                out.add(new Decision.Reserve(j.jobId(), p.cs.name, moved.nodeIds(), moved.dueAtMillis(), "job "
                        + j.jobId() + " holds its reservation until it starts; its nodes would not be ready within "
                        + "the longest protected window, so it now holds " + moved.nodeIds() + " (they free up "
                        + "soonest), due " + Explainer.due(moved.dueAtMillis())));
            }
        }
    }

    /** The plan on exactly these nodes, empty if one of them is gone or too small now. */
    private Optional<ReservationPlanner.Plan> planOn(Job j, List<String> nodeIds) {
        int gpus = j.request().gpusPerReplica();
        ArrayList<ReservationPlanner.NodeOutlook> outlooks = new ArrayList<>();
        for (String id : nodeIds) {
            Node n = book.node(id);
            if (n == null || !n.available() || n.gpus() < gpus) {
                return Optional.empty();
            }
            outlooks.add(outlook(j, n));
        }
        return ReservationPlanner.plan(nodeIds.size(), gpus, p.t, outlooks);
    }

    /** Pass step 5: reservations not confirmed by this pass go (held ones stay while their holder waits). */
    public void dropUnconfirmed() {
        for (Reservation r : List.copyOf(book.all())) {
            if (!confirmed.contains(r.jobId()) && !kept.contains(r.jobId())) {
                book.drop(r);
            }
        }
    }

    public boolean confirmed(String jobId) {
        return confirmed.contains(jobId);
    }

    /** No reservation will be created or moved by a job further down this pass. */
    public boolean reservationsFinal() {
        if (!p.policy.reservesForBlockedJobs() || max == 0) {
            return true;
        }
        if (book.size() < max) {
            return false;
        }
        for (Reservation r : book.all()) {
            if (!confirmed.contains(r.jobId())) {
                return false;
            }
        }
        return true;
    }

    /** Whether a job further down could still make a reservation (fewer than the maximum stand). */
    public boolean roomForMore() {
        return p.policy.reservesForBlockedJobs() && book.size() < max;
    }

    /**
     * The blocked job {@code j} (which holds {@code own}, or null) keeps or gets nodes reserved;
     * a new reservation is reported to {@code out}. False if it gets none.
     */
    public boolean reserve(Job j, Reservation own, List<Decision> out) {
        int gpus = j.request().gpusPerReplica();
        if (own != null && kept.contains(j.jobId())) {
            confirmed.add(j.jobId()); // planned at the pass's start
            return true;
        }
        if (own != null) {
            boolean intact = true;
            ArrayList<ReservationPlanner.NodeOutlook> outlooks = new ArrayList<>();
            for (String id : own.nodeIds()) {
                Node n = book.node(id);
                if (!n.available() || n.gpus() < gpus) {
                    intact = false;
                    break;
                }
                outlooks.add(outlook(j, n));
            }
            if (intact) {
                Optional<ReservationPlanner.Plan> plan = ReservationPlanner.plan(own.nodeIds().size(), gpus, p.t,
                        outlooks);
                book.redue(own, plan.map(ReservationPlanner.Plan::dueAtMillis).orElse(Long.MAX_VALUE));
                confirmed.add(j.jobId());
                return true;
            }
            book.drop(own);
        }
        if (refusedForRoom) {
            return false; // a slot freed later in this pass goes to that better-ranked job at the next
        }
        if (book.size() >= max) {
            Reservation later = takeover();
            if (later == null) {
                refusedForRoom = true;
                return false;
            }
            book.drop(later);
        }
        if (max == 0) {
            return false;
        }
        ArrayList<ReservationPlanner.NodeOutlook> outlooks = new ArrayList<>();
        for (Node n : p.cs.nodes()) {
            if (n.available() && n.reservedFor() == null && !n.debugReserve() && n.gpus() >= gpus) {
                outlooks.add(outlook(j, n));
            }
        }
        Optional<ReservationPlanner.Plan> plan = ReservationPlanner.plan(j.request().replicas(), gpus, p.t, outlooks);
        if (plan.isEmpty()) {
            return false;
        }
        Reservation r = new Reservation(j.jobId(), p.cs.name, plan.get().nodeIds(), plan.get().dueAtMillis());
        book.add(r);
        confirmed.add(j.jobId());
        out.add(new Decision.Reserve(j.jobId(), p.cs.name, r.nodeIds(), r.dueAtMillis(),
                "job " + j.jobId() + " ranks first among blocked jobs and needs " + j.request().replicas() + " x "
                        + gpus + " GPUs, more than any free block: holding " + r.nodeIds()
                        + " (they free up soonest), due " + Explainer.due(r.dueAtMillis())
                        + "; only work that ends or may be preempted before then may use them"));
        return true;
    }

    /**
     * The reservation a blocked job walked now would take over ({@link #reserve}): one of a job ranked
     * after it (not confirmed yet in this pass, not held), when every slot is taken; null if none.
     */
    public Reservation takeover() {
        if (refusedForRoom || max == 0 || book.size() < max) {
            return null;
        }
        Reservation later = null;
        for (Reservation r : book.all()) {
            if (!confirmed.contains(r.jobId()) && !kept.contains(r.jobId())) {
                later = r;
            }
        }
        return later;
    }

    /**
     * When each job on the node is out of the holder's way: unallocated work now (if the holder
     * may preempt); allocated work it may displace at the end of its protected window; other work at
     * its expected end if known; else never. With held reservations, judged at the time it happens:
     * also after the victim's own no-thrash guard, which lapses at a known time (a guarded job is
     * not "never"), not if the loss cap would spare it by then (a job that is not resumable loses its
     * whole run), and at its expected end if that is sooner.
     */
    private ReservationPlanner.NodeOutlook outlook(Job holder, Node n) {
        ArrayList<ReservationPlanner.Release> rel = new ArrayList<>();
        boolean mayPreempt = p.mayPreempt(holder);
        long cap = p.config.goodput().maxLossPerGpuMillis();
        boolean judgedWhenDue = p.config.goodput().heldReservations();
        long unprotected = p.policy.contractsProtect() ? 0 : Long.MIN_VALUE;
        for (Map.Entry<String, int[]> e : n.jobs().entrySet()) {
            Job r = p.jobs.get(e.getKey());
            long ends = r.request().expectedDurationMillis() >= 0
                    ? Math.max(p.t, r.placedAtMillis() + r.request().expectedDurationMillis()) : Long.MAX_VALUE;
            long at;
            if (mayPreempt && r.unallocated()) {
                at = p.t;
            } else if (mayPreempt && judgedWhenDue) {
                long from = p.displaceable(holder, r) ? p.t : p.holderRightFrom(holder, r);
                at = from == Long.MAX_VALUE ? ends
                        : Math.max(from, Math.max(unprotected, r.protectedUntilMillis()));
                if (at < ends && cap > 0 && !r.request().resumable() && at - r.placedAtMillis() > cap) {
                    at = ends; // spared by the loss cap by then
                }
                at = Math.min(at, ends);
            } else if (mayPreempt && (p.displaceable(holder, r) || p.displaceableByHolder(holder, r, false))) {
                at = Math.max(p.t, Math.max(unprotected, r.protectedUntilMillis()));
            } else {
                at = ends;
            }
            rel.add(new ReservationPlanner.Release(e.getValue().length, at));
        }
        return new ReservationPlanner.NodeOutlook(n.nodeId(), n.freeGpus(), rel);
    }
}
