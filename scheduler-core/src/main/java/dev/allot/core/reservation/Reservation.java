package dev.allot.core.reservation;

import java.util.List;

/**
 * Nodes held for a blocked job. While it lasts no new protected work lands on these nodes unless
 * it ends, or may be preempted by the job, before {@code dueAtMillis}.
 *
 * @param dueAtMillis when the nodes are expected to be free enough ({@link Long#MAX_VALUE} if unknown)
 */
public record Reservation(String jobId, String cluster, List<String> nodeIds, long dueAtMillis) {
    public Reservation {
        nodeIds = List.copyOf(nodeIds);
    }
}
