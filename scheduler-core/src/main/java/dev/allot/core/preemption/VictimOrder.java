package dev.allot.core.preemption;

import dev.allot.core.ChargeMode;
import dev.allot.core.JobView;
import java.util.Comparator;

/**
 * Which running job to displace first, on one node, when an allocated job needs room: the one
 * that throws away least work.
 *
 * <p>The victim rules, in the order the core applies them ({@link VictimSearch}, driven by {@link Preemptor}):
 * <ol>
 *   <li>Only unallocated victims are tried first; allocated victims (past their protected window,
 *       of an account the policy lets the preemptor displace) are added only when unallocated ones
 *       cannot make room.</li>
 *   <li>Replicas are placed one node at a time; each step takes the eligible node that costs
 *       least: least allocated work lost, then least work lost (whole gangs count), then node id.
 *       A node whose free GPUs already suffice costs nothing.</li>
 *   <li>On a node, victims in {@link #at} order: unallocated first, then least work lost
 *       ({@link #lostMillis}), then job id. Unallocated victims alone if they make room, else all of
 *       them and allocated ones for the rest; within each kind the cheaper of the victims in that
 *       order until there is room (less those the later ones made needless) and the first one that
 *       frees enough on its own ({@code VictimSearch.choose}).</li>
 *   <li>A displaced gang frees its GPUs on every node it spans.</li>
 * </ol>
 */
public final class VictimOrder {
    private VictimOrder() {
    }

    /**
     * The work a release at {@code nowMillis} throws away, in GPU-milliseconds: its GPUs times the
     * time since its last checkpoint (since its placement when it is not resumable), plus
     * {@code restartMillis} per GPU for starting again (loading, warming up), so that of two victims
     * that lose nothing the smaller goes.
     */
    public static long lostMillis(JobView v, long nowMillis, long restartMillis) {
        long since = v.request().resumable() ? Math.max(v.lastCheckpointMillis(), v.placedAtMillis()) : v.placedAtMillis();
        return (long) v.gpus() * (Math.max(0, nowMillis - since) + restartMillis);
    }

    /** Rule 3, at time {@code nowMillis} (work lost depends on it). Spelled out: it sorts every node's victims each pass. */
    public static Comparator<JobView> at(long nowMillis, long restartMillis) {
        return (a, b) -> {
            int c = Boolean.compare(a.chargeMode() == ChargeMode.ALLOCATED, b.chargeMode() == ChargeMode.ALLOCATED);
            if (c != 0) {
                return c;
            }
            c = Long.compare(lostMillis(a, nowMillis, restartMillis), lostMillis(b, nowMillis, restartMillis));
            return c != 0 ? c : a.jobId().compareTo(b.jobId());
        };
    }
}
