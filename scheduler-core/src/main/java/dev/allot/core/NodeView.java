package dev.allot.core;

import java.util.List;

/** Read-only view of a node. */
public interface NodeView {
    NodeSpec spec();

    default String nodeId() {
        return spec().nodeId();
    }

    default String cluster() {
        return spec().cluster();
    }

    /** Fencing epoch: 1 at first registration, +1 each time a lost node registers again. */
    long epoch();

    boolean draining();

    boolean lost();

    /**
     * Silent for a while but not lost yet: its jobs stay, but no new work goes there (it may be about to be
     * lost, and work placed there would be lost with it).
     */
    boolean unreachable();

    int freeGpus();

    /** Ids of the jobs holding GPUs on this node, sorted. */
    List<String> jobIds();

    /** Id of the job this node is reserved for, or null. */
    String reservedFor();

    /** Held for the debug lane: only lane jobs and unallocated work land here. */
    boolean debugReserve();
}
