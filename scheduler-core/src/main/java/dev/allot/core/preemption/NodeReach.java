package dev.allot.core.preemption;

/**
 * Nodes (array indices) filed under a key, one bitset per threshold, so "every node with key at
 * least G, in index order" skips the others 64 at a time instead of testing each.
 *
 * <p>A key may only go down ({@link #lower}); callers file an upper bound and lower it when they
 * see the exact value, so a stale key costs a visit, never a missed node.
 */
public final class NodeReach {
    private final int[] key;
    /** atLeast[k]: the nodes whose key is at least k (atLeast[0]: every node). */
    private final long[][] atLeast;

    /** @param keys each node's key, at least 0 */
    public NodeReach(int[] keys) {
        int max = 0;
        for (int k : keys) {
            max = Math.max(max, k);
        }
        key = keys.clone();
        int words = (keys.length + 63) >>> 6;
        atLeast = new long[max + 1][words];
        for (int i = 0; i < keys.length; i++) {
            atLeast[keys[i]][i >>> 6] |= 1L << i; // key exactly keys[i] for now
        }
        for (int k = max - 1; k >= 0; k--) {
            for (int w = 0; w < words; w++) {
                atLeast[k][w] |= atLeast[k + 1][w];
            }
        }
    }

    /** The nodes with key at least {@code k} as bitset words (shared: do not modify), or null if none can be. */
    public long[] atLeast(int k) {
        if (k >= atLeast.length) {
            return null;
        }
        return atLeast[Math.max(k, 0)];
    }

    public int key(int i) {
        return key[i];
    }

    /** Lowers node {@code i}'s key to {@code k} (no-op if it is not lower). */
    public void lower(int i, int k) {
        k = Math.max(k, 0);
        for (int t = k + 1; t <= key[i]; t++) {
            atLeast[t][i >>> 6] &= ~(1L << i);
        }
        key[i] = Math.min(key[i], k);
    }
}
