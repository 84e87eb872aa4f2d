package dev.allot.core.placement;

import dev.allot.core.cluster.Node;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.TreeSet;

/**
 * Open nodes of a cluster (live, not draining, not reserved) filed by their number of free GPUs,
 * so "how many nodes have at least G free" costs O(max GPUs per node) and best fit is a walk
 * from the smallest sufficient bucket up. Within a bucket nodes are in id order.
 */
public final class FreeIndex {
    private static final Comparator<Node> BY_ID = Comparator.comparing(Node::nodeId);

    private final ArrayList<TreeSet<Node>> byFree = new ArrayList<>();
    /** The size of each bucket of {@link #byFree}: countAtLeast is asked for nearly every job a pass walks. */
    private int[] sizes = new int[0];
    private int freeGpus;
    /** {@link #countsAtLeast()} until the index changes (a pass asks for it for every account it skips). */
    private int[] counts;

    public void add(Node n) {
        if (n.indexedFreeOf() >= 0) {
            return;
        }
        file(n, n.freeGpus());
    }

    public void remove(Node n) {
        int f = n.indexedFreeOf();
        if (f < 0) {
            return;
        }
        if (byFree.get(f).remove(n)) {
            sizes[f]--;
        }
        counts = null;
        freeGpus -= f;
        n.indexedFree(-1);
    }

    /** Call after the node's free count changed. No-op for nodes not in the index. */
    public void update(Node n) {
        int f = n.indexedFreeOf();
        if (f < 0 || f == n.freeGpus()) {
            return;
        }
        remove(n);
        file(n, n.freeGpus());
    }

    private void file(Node n, int free) {
        while (byFree.size() <= free) {
            byFree.add(new TreeSet<>(BY_ID));
        }
        if (sizes.length < byFree.size()) {
            sizes = Arrays.copyOf(sizes, byFree.size());
        }
        if (byFree.get(free).add(n)) {
            sizes[free]++;
        }
        counts = null;
        freeGpus += free;
        n.indexedFree(free);
    }

    /** Number of open nodes with at least {@code gpus} free. */
    public int countAtLeast(int gpus) {
        int c = 0;
        for (int f = Math.max(gpus, 0); f < sizes.length; f++) {
            c += sizes[f];
        }
        return c;
    }

    /** countAtLeast(g) for every g from 0 up to the most free GPUs on a node (above that: 0). Shared: do not modify. */
    public int[] countsAtLeast() {
        if (counts == null) {
            counts = new int[sizes.length + 1];
            for (int f = sizes.length - 1; f >= 0; f--) {
                counts[f] = counts[f + 1] + sizes[f];
            }
        }
        return counts;
    }

    /** Free GPUs over all open nodes. */
    public int freeGpus() {
        return freeGpus;
    }

    /** Best fit: the {@code n} open nodes with the fewest free GPUs that still hold {@code gpus}, or fewer if not enough. */
    public List<Node> bestFit(int n, int gpus) {
        ArrayList<Node> out = new ArrayList<>(n);
        for (int f = Math.max(gpus, 0); f < byFree.size() && out.size() < n; f++) {
            for (Node node : byFree.get(f)) {
                out.add(node);
                if (out.size() == n) {
                    break;
                }
            }
        }
        return out;
    }
}
