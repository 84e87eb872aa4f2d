package dev.allot.core.preemption;

import dev.allot.core.ChargeMode;
import dev.allot.core.JobView;
import java.util.Comparator;

/**
 * Which running job to displace first, on one node, when an allocated job needs room.
 *
 * <p>The victim rules, in the order the core applies them ({@link VictimSearch}, driven by {@link Preemptor}):
 * <ol>
 *   <li>Only unallocated victims are tried first; allocated victims (past their protected window,
 *       of an account ranking below by the margin) are added only when unallocated ones cannot
 *       make room.</li>
 *   <li>Replicas are placed one node at a time; each step takes the eligible node that costs
 *       least: fewest allocated GPUs lost, then fewest GPUs lost (whole gangs count), then node
 *       id. A node whose free GPUs already suffice costs nothing.</li>
 *   <li>On a node, victims are taken in {@link #ORDER} until the node has room: unallocated first,
 *       then fewest GPUs, then resumable, then least work since the last checkpoint, then job id.</li>
 *   <li>A displaced gang frees its GPUs on every node it spans.</li>
 * </ol>
 */
public final class VictimOrder {
    private VictimOrder() {
    }

    /** Rule 3, at time {@code nowMillis} (work since checkpoint depends on it). Spelled out: it sorts every node's victims each pass. */
    public static Comparator<JobView> at(long nowMillis) {
        return (a, b) -> {
            int c = Boolean.compare(a.chargeMode() == ChargeMode.ALLOCATED, b.chargeMode() == ChargeMode.ALLOCATED);
            if (c != 0) {
                return c;
            }
            c = Integer.compare(a.gpus(), b.gpus());
            if (c != 0) {
                return c;
            }
            c = Boolean.compare(!a.request().resumable(), !b.request().resumable());
            if (c != 0) {
                return c;
            }
            c = Long.compare(nowMillis - a.lastCheckpointMillis(), nowMillis - b.lastCheckpointMillis());
            return c != 0 ? c : a.jobId().compareTo(b.jobId());
        };
    }
}
