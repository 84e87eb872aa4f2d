package dev.allot.core.preemption;

import dev.allot.core.Decision;
import dev.allot.core.cluster.Node;
import dev.allot.core.explain.ReasonFormat;
import dev.allot.core.pass.FailedShapes;
import dev.allot.core.pass.PassContext;
import dev.allot.core.placement.GangFit;
import dev.allot.core.policy.PreemptionVerdict;
import dev.allot.core.state.ClusterState;
import dev.allot.core.state.Job;
import java.util.List;

/**
 * Makes room for a waiting allocated job by displacing running jobs (preemption rules (a) and
 * (b), victims in {@link VictimOrder}): finds the victims with the pass's {@link VictimSearch},
 * requeues them and reports each {@link Decision.Preempt}; the caller places the preemptor.
 */
public final class Preemptor {
    private Preemptor() {
    }

    /** Where the preemptor goes, and the victims (ids, comma separated) that made the room. */
    public record Room(List<Node> nodes, String victims) {
    }

    /**
     * Before a full victim search: can this job displace anything at all (one GPU)? If not, no
     * job ranked after it can either (their candidates are fewer), which is recorded as a (1 x 1)
     * failure and lets the rest of the pass skip preemption.
     */
    public static boolean cannotDisplaceAnything(PassContext p, Job j, boolean holder, FailedShapes preemptionFailed) {
        if (holder) {
            return p.victims().nothingPreemptible(); // its right on its own nodes is not the account's
        }
        if (preemptionFailed.dominates(1, 1)) {
            return true;
        }
        VictimSearch search = p.victims();
        if (search.nothingPreemptible() || !p.mayDisplaceAnyone(j)
                || !p.anyDisplaceableVictim(j, GangFit.nodesFor(p, j, 1))) {
            preemptionFailed.add(1, 1);
            return true;
        }
        return false;
    }

    /**
     * Displaces what the job needs to fit (shape {@code replicas} x {@code gpus}), each victim
     * requeued and reported to {@code out}; null (nothing changed) if it cannot make room.
     */
    public static Room makeRoom(PassContext p, Job j, boolean holder, int replicas, int gpus, List<Decision> out) {
        VictimSearch search = p.victims();
        if (search.nothingPreemptible()) {
            return null;
        }
        VictimSearch.Selection sel = search.select(replicas, gpus, GangFit.nodesFor(p, j, gpus),
                v -> p.displaceable(j, v) || holder && p.displaceableByHolder(j, v, true),
                holder || p.mayDisplaceAllocated(j), holder ? null : p.victimNodes(j));
        if (sel == null) {
            return null;
        }
        ClusterState cs = p.cs;
        StringBuilder victims = new StringBuilder();
        for (Job v : sel.victims()) {
            PreemptionVerdict verdict = v.unallocated() ? null : p.verdict(j, v);
            boolean byRight = verdict != null && !p.displaceable(j, v);
            search.displaced(v);
            p.displaced(j, v);
            boolean keep = v.request().resumable();
            ClusterState.Released released = cs.requeue(v, p.t, keep);
            String why = p.reasons ? why(j, verdict, byRight, keep) : "";
            out.add(new Decision.Preempt(v.jobId(), v.account(), j.jobId(), j.account(), v.chargeMode(),
                    verdict == null ? Double.NaN : verdict.victimRatio(),
                    verdict == null ? Double.NaN : verdict.preemptorRatio(), keep, why, released.placement(),
                    released.lostGpuSeconds()));
            victims.append(victims.isEmpty() ? "" : ",").append(v.jobId());
        }
        return new Room(sel.nodes(), victims.toString());
    }

    /** Why the victim was preempted by {@code j} (verdict null for an unallocated victim), and what becomes of it. */
    private static String why(Job j, PreemptionVerdict verdict, boolean byRight, boolean keep) {
        String why;
        if (verdict == null) {
            why = "unallocated jobs may be displaced at any time by allocated work: preempted by job " + j.jobId()
                    + " (account " + j.account() + ")";
        } else if (byRight) {
            why = "preempted by job " + j.jobId() + " (account " + j.account() + "), which ranks first among blocked"
                    + " jobs and holds the reservation of this job's node: past its protected window (ratios "
                    + ReasonFormat.ratio(verdict.victimRatio()) + " vs " + ReasonFormat.ratio(verdict.preemptorRatio()) + ")";
        } else {
            why = "preempted by job " + j.jobId() + " (account " + j.account() + "): past its protected window and "
                    + verdict.reason();
        }
        return why + (keep ? "; resumable, requeued keeping its submit time"
                : "; not resumable, requeued to restart from scratch");
    }

    /** The preemptor, placed on the room made for it, is not displaced itself for the no-thrash window. */
    public static void guard(PassContext p, Job j) {
        long window = p.config.goodput().noThrashMillis();
        if (window > 0) {
            p.cs.guardFromThrash(j, p.t + window);
        }
    }
}
