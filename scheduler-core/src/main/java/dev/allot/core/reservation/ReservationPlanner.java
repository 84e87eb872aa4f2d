package dev.allot.core.reservation;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * Picks the nodes that free up soonest for a blocked gang.
 *
 * <p>Rules: (1) for each node, the time it will have {@code gpusPerReplica} free is found by
 * releasing its jobs in order of their expected release time (unallocated jobs the blocked job may
 * displace: now; allocated jobs it may displace: end of their protected window; jobs it may not
 * displace: their expected end if known, else never). (2) The {@code replicas} nodes with the
 * earliest such time are taken; ties: more GPUs free now, then node id. (3) The reservation is due
 * when the last of them is free enough.
 */
public final class ReservationPlanner {

    /** A job's GPUs on a node and when they are expected back. */
    public record Release(int gpus, long atMillis) {
    }

    /** A node that may be reserved: free GPUs now and its jobs' expected releases. */
    public record NodeOutlook(String nodeId, int freeGpus, List<Release> releases) {
    }

    public record Plan(List<String> nodeIds, long dueAtMillis) {
    }

    private record Ready(String nodeId, int freeNow, long at) {
    }

    private ReservationPlanner() {
    }

    public static Optional<Plan> plan(int replicas, int gpusPerReplica, long nowMillis, List<NodeOutlook> nodes) {
        ArrayList<Ready> ready = new ArrayList<>();
        for (NodeOutlook n : nodes) {
            long at = readyAt(n, gpusPerReplica, nowMillis);
            if (at != Long.MIN_VALUE) {
                ready.add(new Ready(n.nodeId(), n.freeGpus(), at));
            }
        }
        if (ready.size() < replicas) {
            return Optional.empty();
        }
        ready.sort(Comparator.comparingLong(Ready::at).thenComparing(Comparator.comparingInt(Ready::freeNow).reversed())
                .thenComparing(Ready::nodeId));
        List<Ready> chosen = ready.subList(0, replicas);
        long due = chosen.stream().mapToLong(Ready::at).max().orElse(nowMillis);
        List<String> ids = chosen.stream().map(Ready::nodeId).sorted().toList();
        return Optional.of(new Plan(ids, due));
    }

    /** When the node has the GPUs free; Long.MAX_VALUE if never known; MIN_VALUE if the node is too small. */
    static long readyAt(NodeOutlook n, int gpus, long now) {
        int free = n.freeGpus();
        if (free >= gpus) {
            return now;
        }
        int total = free;
        for (Release r : n.releases()) {
            total += r.gpus();
        }
        if (total < gpus) {
            return Long.MIN_VALUE;
        }
        List<Release> rs = new ArrayList<>(n.releases());
        rs.sort(Comparator.comparingLong(Release::atMillis));
        for (Release r : rs) {
            free += r.gpus();
            if (free >= gpus) {
                return Math.max(now, r.atMillis());
            }
        }
        return Long.MAX_VALUE;
    }
}
