package dev.allot.core.state;

import java.util.TreeMap;

/**
 * A multiset of job shapes: GPUs per replica to a multiset of replica counts. Internal.
 * Enough to ask "which shapes are there" without visiting the jobs.
 */
public final class ShapeCounts {
    // counts in one-element arrays: a pass adds once per walked job, so no boxing on the way
    private final TreeMap<Integer, TreeMap<Integer, int[]>> byGpus = new TreeMap<>();

    /** Adds {@code d} (may be negative) jobs of {@code replicas} x {@code gpus}; empty entries go. */
    public void add(int gpus, int replicas, int d) {
        if (d == 0) {
            return;
        }
        TreeMap<Integer, int[]> m = byGpus.get(gpus);
        if (m == null) {
            m = new TreeMap<>();
            byGpus.put(gpus, m);
        }
        int[] count = m.get(replicas);
        if (count == null) {
            m.put(replicas, new int[] {d});
        } else if ((count[0] += d) == 0) {
            m.remove(replicas);
            if (m.isEmpty()) {
                byGpus.remove(gpus);
            }
        }
    }

    public boolean isEmpty() {
        return byGpus.isEmpty();
    }

    /** The fewest GPUs per replica among the shapes (the set must not be empty). */
    public int fewestGpus() {
        return byGpus.firstKey();
    }

    /** How many jobs it holds. */
    public int jobs() {
        int n = 0;
        for (TreeMap<Integer, int[]> byReplicas : byGpus.values()) {
            for (int[] count : byReplicas.values()) {
                n += count[0];
            }
        }
        return n;
    }

    /**
     * Per GPUs per replica, the fewest replicas among the shapes not used up by {@code excluded}
     * (0: none), indexed by GPUs per replica.
     */
    public int[] fewestReplicas(ShapeCounts excluded) {
        int[] out = new int[byGpus.isEmpty() ? 0 : byGpus.lastKey() + 1];
        for (var e : byGpus.entrySet()) {
            TreeMap<Integer, int[]> left = excluded == null ? null : excluded.byGpus.get(e.getKey());
            out[e.getKey()] = fewestLeft(e.getValue(), left);
        }
        return out;
    }

    /** The smallest count in multiset {@code all} not used up by {@code excluded}, or 0 if none is left. */
    private static int fewestLeft(TreeMap<Integer, int[]> all, TreeMap<Integer, int[]> excluded) {
        for (var c : all.entrySet()) {
            int[] used = excluded == null ? null : excluded.get(c.getKey());
            if (c.getValue()[0] > (used == null ? 0 : used[0])) {
                return c.getKey();
            }
        }
        return 0;
    }

    /** Is some shape wider than the cluster: more replicas than {@code ableNodes.applyAsInt(g)} nodes of at least g GPUs? */
    public boolean anyWiderThan(java.util.function.IntUnaryOperator ableNodes) {
        for (var e : byGpus.entrySet()) {
            if (e.getValue().lastKey() > ableNodes.applyAsInt(e.getKey())) {
                return true;
            }
        }
        return false;
    }

    /** Could a gang of these shapes fit where {@code nodesWithFree.applyAsInt(g)} nodes have at least g GPUs free? */
    public boolean anyFits(java.util.function.IntUnaryOperator nodesWithFree) {
        for (var e : byGpus.entrySet()) {
            if (nodesWithFree.applyAsInt(e.getKey()) >= e.getValue().firstKey()) {
                return true;
            }
        }
        return false;
    }

    /** Could a gang of these shapes fit in {@code nodes} nodes with {@code free} GPUs each? */
    public boolean anyFitsIn(int free, int nodes) {
        for (var byReplicas : byGpus.headMap(free, true).values()) {
            if (byReplicas.firstKey() <= nodes) {
                return true;
            }
        }
        return false;
    }
}
