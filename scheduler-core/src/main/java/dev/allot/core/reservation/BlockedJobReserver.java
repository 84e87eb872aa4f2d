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

    /** Pass step 5: reservations not confirmed by this pass go. */
    public void dropUnconfirmed() {
        for (Reservation r : List.copyOf(book.all())) {
            if (!confirmed.contains(r.jobId())) {
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
        if (book.size() >= max) {
            // take over the reservation of a job ranked after this one (not confirmed yet in this pass)
            Reservation later = null;
            for (Reservation r : book.all()) {
                if (!confirmed.contains(r.jobId())) {
                    later = r;
                }
            }
            if (later == null) {
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
     * When each job on the node is out of the holder's way: unallocated work now (if the holder
     * may preempt), displaceable allocated work at the end of its protected window, other work at
     * its expected end if known, else never.
     */
    private ReservationPlanner.NodeOutlook outlook(Job holder, Node n) {
        ArrayList<ReservationPlanner.Release> rel = new ArrayList<>();
        boolean mayPreempt = p.mayPreempt(holder);
        for (Map.Entry<String, int[]> e : n.jobs().entrySet()) {
            Job r = p.jobs.get(e.getKey());
            long at;
            if (mayPreempt && r.unallocated()) {
                at = p.t;
            } else if (mayPreempt && (p.displaceable(holder, r) || p.displaceableByHolder(holder, r, false))) {
                at = p.policy.contractsProtect() ? Math.max(p.t, r.protectedUntilMillis()) : p.t;
            } else if (r.request().expectedDurationMillis() >= 0) {
                at = Math.max(p.t, r.placedAtMillis() + r.request().expectedDurationMillis());
            } else {
                at = Long.MAX_VALUE;
            }
            rel.add(new ReservationPlanner.Release(e.getValue().length, at));
        }
        return new ReservationPlanner.NodeOutlook(n.nodeId(), n.freeGpus(), rel);
    }
}
