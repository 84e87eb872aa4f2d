package dev.allot.core.ordering;

import dev.allot.core.cluster.Node;
import dev.allot.core.state.ClusterState;
import dev.allot.core.state.Job;
import dev.allot.core.state.Jobs;
import java.util.Map;

/**
 * Debug lane rule 5: which nodes a cluster holds for the lane. As many whole nodes as the lane's
 * demand needs plus one spare, at most {@link DebugLane#reserveNodes} of them, released only when
 * two above the need; none until debug work first shows up (a cluster without any pays nothing).
 * Nodes that drain or are lost leave at once ({@code ClusterState.drain}, {@code lose}); a missing node is
 * replaced by the open node with the most GPUs free or held by lane and unallocated work, then the
 * most GPUs, then the highest id (low ids are packed first, so the reserve sits at the other end).
 */
public final class LaneReserve {
    private LaneReserve() {
    }

    /** @param lane the lane's bounds, or null when the policy has no lane */
    public static void hold(ClusterState cs, DebugLane lane, Jobs jobs) {
        int demand = lane != null ? cs.laneDemand.demandGpus(lane.gpusPerAccount()) : 0;
        if (demand == 0 && cs.laneNodes.isEmpty()) {
            return;
        }
        int live = cs.ableNodes(0);
        int widestNode = cs.widestAbleNode();
        int cap = lane != null ? lane.reserveNodes(live) : 0;
        int target = Math.min(cap, 1 + ceilDiv(demand, Math.max(1, widestNode)));
        while (cs.laneNodes.size() > target + 1 || cs.laneNodes.size() > cap) {
            cs.laneNodes.releaseFirst(cs.open);
        }
        while (cs.laneNodes.size() < target) {
            Node best = null;
            int bestUsable = -1;
            for (Node n : cs.nodes()) {
                if (!n.available() || n.debugReserve() || n.reservedFor() != null) {
                    continue;
                }
                int usable = n.freeGpus();
                for (Map.Entry<String, int[]> e : n.jobs().entrySet()) {
                    Job r = jobs.get(e.getKey());
                    if (r.unallocated() || r.inLane()) {
                        usable += e.getValue().length;
                    }
                }
                if (best == null || usable > bestUsable || (usable == bestUsable && n.gpus() >= best.gpus())) {
                    best = n; // nodes come in id order: on a full tie the later (higher) id wins
                    bestUsable = usable;
                }
            }
            if (best == null) {
                return;
            }
            cs.laneNodes.hold(best, cs.open);
        }
    }

    private static int ceilDiv(int a, int b) {
        return (a + b - 1) / b;
    }
}
