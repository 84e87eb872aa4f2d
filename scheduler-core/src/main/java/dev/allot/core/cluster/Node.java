package dev.allot.core.cluster;

import dev.allot.core.NodeSpec;
import dev.allot.core.NodeView;
import java.util.BitSet;
import java.util.List;
import java.util.TreeMap;

/**
 * A node's state in the core: which GPU indices each job holds, drain, reachability and loss flags, the
 * fencing epoch and the reservation it belongs to. Mutated only by the scheduler.
 */
public final class Node implements NodeView {
    private final NodeSpec spec;
    private long epoch = 1;
    private boolean draining;
    private boolean drainedReported;
    private boolean lost;
    private boolean unreachable;
    private boolean debugReserve;
    private String reservedFor;
    private final BitSet used = new BitSet();
    private int free;
    private final TreeMap<String, int[]> jobs = new TreeMap<>();
    /** Free count under which the FreeIndex files this node, or -1 when not indexed. */
    private int indexedFree = -1;

    public Node(NodeSpec spec) {
        this.spec = spec;
        this.free = spec.gpus();
    }

    /** A node with {@code from}'s spec, epoch, drain and loss flags, holding nothing (a copy of the core fills it). */
    public static Node emptyCopyOf(Node from) {
        Node n = new Node(from.spec);
        n.epoch = from.epoch;
        n.draining = from.draining;
        n.drainedReported = from.drainedReported;
        n.lost = from.lost;
        n.unreachable = from.unreachable;
        return n;
    }

    @Override
    public NodeSpec spec() {
        return spec;
    }

    @Override
    public long epoch() {
        return epoch;
    }

    @Override
    public boolean draining() {
        return draining;
    }

    @Override
    public boolean lost() {
        return lost;
    }

    @Override
    public boolean unreachable() {
        return unreachable;
    }

    @Override
    public int freeGpus() {
        return free;
    }

    public int gpus() {
        return spec.gpus();
    }

    @Override
    public List<String> jobIds() {
        return List.copyOf(jobs.keySet());
    }

    /** Job id to the GPU indices it holds here, sorted by job id. Live view: do not modify. */
    public TreeMap<String, int[]> jobs() {
        return jobs;
    }

    @Override
    public String reservedFor() {
        return reservedFor;
    }

    public void reservedFor(String jobId) {
        this.reservedFor = jobId;
    }

    @Override
    public boolean debugReserve() {
        return debugReserve;
    }

    public void debugReserve(boolean held) {
        this.debugReserve = held;
    }

    /** Live, reachable, not draining: may take new work. */
    public boolean available() {
        return !lost && !unreachable && !draining;
    }

    public boolean drainedReported() {
        return drainedReported;
    }

    public void markDrainedReported() {
        drainedReported = true;
    }

    public void drain() {
        draining = true;
    }

    public void undrain() {
        draining = false;
        drainedReported = false;
    }

    public void lose() {
        lost = true;
    }

    public void unreachable(boolean silent) {
        this.unreachable = silent;
    }

    /** A lost node comes back: new epoch, empty, reachable, not draining. */
    public void fence() {
        lost = false;
        unreachable = false;
        draining = false;
        drainedReported = false;
        epoch++;
        used.clear();
        jobs.clear();
        reservedFor = null;
        debugReserve = false;
        free = spec.gpus();
    }

    /** Gives the job the lowest free GPU indices. */
    public int[] allocate(String jobId, int gpus) {
        if (gpus > freeGpus()) {
            throw new IllegalStateException(gpus + " GPUs asked on " + spec.nodeId() + " with " + freeGpus() + " free");
        }
        if (jobs.containsKey(jobId)) {
            throw new IllegalStateException(jobId + " already holds GPUs on " + spec.nodeId());
        }
        int[] idx = new int[gpus];
        int from = 0;
        for (int i = 0; i < gpus; i++) {
            int g = used.nextClearBit(from);
            used.set(g);
            idx[i] = g;
            from = g + 1;
        }
        jobs.put(jobId, idx);
        free -= gpus;
        return idx;
    }

    /**
     * Gives the job exactly these GPU indices (a placement restored from the log). Refuses an
     * index out of range or already held: two jobs never share a GPU, restored or not.
     */
    public void allocateExact(String jobId, List<Integer> indices) {
        if (jobs.containsKey(jobId)) {
            throw new IllegalStateException(jobId + " already holds GPUs on " + spec.nodeId());
        }
        int[] idx = new int[indices.size()];
        BitSet asked = new BitSet();
        for (int i = 0; i < idx.length; i++) {
            int g = indices.get(i);
            if (g < 0 || g >= spec.gpus() || used.get(g) || asked.get(g)) {
                throw new IllegalStateException("GPU " + g + " of " + spec.nodeId() + " is not free for " + jobId
                        + " (node has " + spec.gpus() + " GPUs, held: " + used + ")");
            }
            asked.set(g);
            idx[i] = g;
        }
        used.or(asked);
        jobs.put(jobId, idx);
        free -= idx.length;
    }

    /** Frees what the job holds here; returns the number of GPUs freed. */
    public int release(String jobId) {
        int[] idx = jobs.remove(jobId);
        if (idx == null) {
            return 0;
        }
        for (int g : idx) {
            used.clear(g);
        }
        free += idx.length;
        return idx.length;
    }

    /** Bookkeeping of {@code placement.FreeIndex}: the bucket the node is filed under, -1 if none. */
    public int indexedFreeOf() {
        return indexedFree;
    }

    /** Bookkeeping of {@code placement.FreeIndex} only. */
    public void indexedFree(int f) {
        indexedFree = f;
    }

    @Override
    public String toString() {
        return spec.nodeId();
    }
}
