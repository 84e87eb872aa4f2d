package dev.allot.core.placement;

import dev.allot.core.cluster.Node;
import dev.allot.core.pass.PassContext;
import dev.allot.core.preemption.VictimSearch;
import dev.allot.core.reservation.Reservation;
import dev.allot.core.state.ClusterState;
import dev.allot.core.state.Job;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;

/**
 * Where a gang fits in free GPUs (placement rules): its own reserved nodes first, then open nodes
 * by best fit, then nodes it may backfill (held for the debug lane, or reserved for another job
 * it will be out of the way of in time); and which nodes may take a replica at all.
 */
public final class GangFit {
    /** Reserved and held nodes are filled fewest free GPUs first, then by id. */
    private static final Comparator<Node> FEWEST_FREE_THEN_ID = Comparator.comparingInt(Node::freeGpus)
            .thenComparing(Node::nodeId);

    private GangFit() {
    }

    /** Nodes for the job's replicas from free GPUs, or null if it does not fit. */
    public static List<Node> fitFree(PassContext p, Job j, Reservation own) {
        ClusterState cs = p.cs;
        int replicas = j.request().replicas();
        int gpus = j.request().gpusPerReplica();
        ArrayList<Node> chosen = new ArrayList<>(replicas);
        if (own != null) {
            ArrayList<Node> mine = new ArrayList<>();
            cs.reservations.nodesWithFree(own, gpus, mine);
            mine.sort(FEWEST_FREE_THEN_ID);
            for (Node n : mine) {
                if (chosen.size() < replicas) {
                    chosen.add(n);
                }
            }
        }
        boolean open = !p.unallocatedBarredFromOpenNodes(j);
        if (chosen.size() < replicas) {
            if (open && cs.open.countAtLeast(gpus) + chosen.size() >= replicas) {
                chosen.addAll(cs.open.bestFit(replicas - chosen.size(), gpus));
                return chosen;
            }
            // backfill nodes reserved for other jobs, and the debug lane's nodes
            ArrayList<Node> backfill = new ArrayList<>();
            if (mayUseLaneNodes(cs, j) && cs.laneNodes.fits(gpus)) { // (else no held node has room)
                for (Node n : cs.laneNodes.nodes()) {
                    if (n.freeGpus() >= gpus) {
                        backfill.add(n);
                    }
                }
            }
            for (Reservation r : cs.reservations.all()) {
                if (r == own) {
                    continue;
                }
                int before = backfill.size();
                if (cs.reservations.nodesWithFree(r, gpus, backfill) > 0 && !mayBackfill(p, j, r)) {
                    backfill.subList(before, backfill.size()).clear();
                }
            }
            int openNodes = open ? cs.open.countAtLeast(gpus) : 0;
            if (openNodes + chosen.size() + backfill.size() < replicas) {
                return null;
            }
            if (open) {
                chosen.addAll(cs.open.bestFit(replicas - chosen.size(), gpus));
            }
            backfill.sort(FEWEST_FREE_THEN_ID);
            for (Node n : backfill) {
                if (chosen.size() < replicas) {
                    chosen.add(n);
                }
            }
        }
        return chosen;
    }

    /** Debug lane rule 5: only lane jobs and unallocated work are placed on held nodes. */
    private static boolean mayUseLaneNodes(ClusterState cs, Job j) {
        return !cs.laneNodes.isEmpty() && (j.unallocated() || cs.inLaneGroup(j));
    }

    /**
     * Backfill rule: a job may use nodes reserved for another job only if it will be out of the
     * way by the time the reservation is due: its expected end is before the due time, or it is
     * unallocated (the reserved job may displace it; not while unallocated work keeps off a
     * backlog's nodes), or its protected window ends before the due time and the reserved job may
     * then displace it (by the policy, or by the holder's reservation right).
     */
    public static boolean mayBackfill(PassContext p, Job j, Reservation r) {
        long expected = j.request().expectedDurationMillis();
        if (expected >= 0 && p.t + expected <= r.dueAtMillis()) {
            return true;
        }
        // the other two ways need the holder to be allowed to preempt: it is looked up last (asked
        // for nearly every job walked)
        boolean unallocated = j.unallocated();
        if (p.unallocatedBarredFromOpenNodes(j)) {
            return false; // the holder would throw it away when due: it keeps off reserved nodes too
        }
        long unprotectedFrom = p.policy.contractsProtect() ? p.t + j.request().minRuntimeMillis() : p.t;
        if (!unallocated && unprotectedFrom > r.dueAtMillis()) {
            return false;
        }
        long cap = p.config.goodput().maxLossPerGpuMillis();
        if (!unallocated && cap > 0 && !j.request().resumable() && r.dueAtMillis() - p.t > cap) {
            return false; // by the due time the loss cap spares it: the holder could not take its node back
        }
        return p.holderMayPreempt(r) && (unallocated || p.displaceable(p.holder(r), j)
                || p.displaceableByHolder(p.holder(r), j, false));
    }

    /** Whether the job may backfill some reservation other than its own. */
    public static boolean mayBackfillAny(PassContext p, Job j) {
        for (Reservation r : p.cs.reservations.all()) {
            if (!r.jobId().equals(j.jobId()) && mayBackfill(p, j, r)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Which nodes may take one of the job's replicas of {@code gpus} GPUs: live, not draining and
     * large enough; held for the lane only for lane jobs; reserved only for the holder and for jobs
     * that may backfill it (asked once per reservation).
     */
    public static VictimSearch.Eligibility nodesFor(PassContext p, Job j, int gpus) {
        boolean lane = p.cs.inLaneGroup(j);
        return new VictimSearch.Eligibility() {
            private HashMap<String, Boolean> backfillOk;

            @Override
            public boolean test(Node n) {
                if (!n.available() || n.gpus() < gpus) {
                    return false;
                }
                if (n.debugReserve()) {
                    return lane;
                }
                String holder = n.reservedFor();
                if (holder == null || holder.equals(j.jobId())) {
                    return true;
                }
                if (backfillOk == null) {
                    backfillOk = new HashMap<>();
                }
                return backfillOk.computeIfAbsent(holder, h -> mayBackfill(p, j, p.cs.reservations.of(h)));
            }
        };
    }
}
