package dev.allot.core.state;

import dev.allot.core.cluster.Node;
import dev.allot.core.placement.FreeIndex;
import java.util.Collection;
import java.util.TreeMap;

/**
 * The nodes a cluster holds for the debug lane (debug lane rule 5): out of the open set while
 * held. Internal. Which nodes to hold is {@code ordering.LaneReserve}'s rule; this keeps the
 * set and the flags on the nodes in step.
 */
public final class LaneNodes {
    private final TreeMap<String, Node> held = new TreeMap<>();
    /** Changes of GPU holdings (placements, releases, held-node changes), for {@link #maxFree}. */
    private long holdingsVersion;
    private long maxFreeVersion = -1;
    private int maxFree;

    public boolean isEmpty() {
        return held.isEmpty();
    }

    public int size() {
        return held.size();
    }

    /** Held nodes in id order. */
    public Collection<Node> nodes() {
        return held.values();
    }

    /** Some job took or gave back GPUs (maybe on a held node). */
    void holdingsChanged() {
        holdingsVersion++;
    }

    /** Holds the node for the lane: it leaves the open set. */
    public void hold(Node n, FreeIndex open) {
        n.debugReserve(true);
        held.put(n.nodeId(), n);
        holdingsVersion++;
        open.remove(n);
    }

    /** The node is no longer held (no-op if it was not); it is open again if it may take work. */
    public void release(Node n, FreeIndex open) {
        if (held.remove(n.nodeId()) != null) {
            holdingsVersion++;
            n.debugReserve(false);
            if (n.available() && n.reservedFor() == null) {
                open.add(n);
            }
        }
    }

    /** Releases the held node with the lowest id. */
    public void releaseFirst(FreeIndex open) {
        release(held.firstEntry().getValue(), open);
    }

    /** The most free GPUs on one held node (0 if none), cached until holdings change. */
    public int maxFree() {
        if (maxFreeVersion != holdingsVersion) {
            maxFree = 0;
            for (Node n : held.values()) {
                maxFree = Math.max(maxFree, n.freeGpus());
            }
            maxFreeVersion = holdingsVersion;
        }
        return maxFree;
    }

    /** Whether a held node has {@code gpus} free. */
    public boolean fits(int gpus) {
        return maxFree() >= gpus;
    }

    /** Held nodes with any GPU free. */
    public int withFree() {
        int n = 0;
        for (Node node : held.values()) {
            if (node.freeGpus() > 0) {
                n++;
            }
        }
        return n;
    }
}
