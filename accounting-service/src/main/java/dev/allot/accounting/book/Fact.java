package dev.allot.accounting.book;

/**
 * One accounting fact, mapped from an event at the edge: usage (GPU-seconds a job held), demand
 * (GPUs an account asked for over an interval) or node capacity (GPUs a node registered with).
 * Carries where it came from (topic, partition, offset). Malformed, invalid and too-late records are
 * dead-lettered at the intake, raw, before they become facts; a fact carries no raw bytes.
 *
 * @param amount usage: GPU-seconds over the interval; demand: GPUs wanted (time-averaged); node: unused
 * @param charged usage only: ALLOCATED (charged) or UNALLOCATED (free)
 * @param gpus node only: GPUs on the node
 */
public record Fact(Kind kind, String cluster, String account, long start, long end, double amount, boolean charged,
                   String jobId, String nodeId, int gpus, String sourceTopic, int sourcePartition, long sourceOffset) {

    public enum Kind { USAGE, DEMAND, NODE }

    /** GPU-seconds this fact spreads over its interval (demand: GPUs x seconds). */
    public double gpuSeconds() {
        return switch (kind) {
            case USAGE -> amount;
            case DEMAND -> amount * (end - start) / 1000.0;
            case NODE -> 0;
        };
    }
}
