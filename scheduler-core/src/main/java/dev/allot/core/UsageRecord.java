package dev.allot.core;

import java.util.Objects;

/**
 * GPU-seconds used by an account on a cluster during [startMillis, endMillis), as reported by
 * node agents (UsageReported) when the core is fed by usage records.
 *
 * @param charged true for allocated work (counts in the ratio), false for unallocated work
 */
public record UsageRecord(String account, String cluster, long startMillis, long endMillis, double gpuSeconds,
        boolean charged) {
    public UsageRecord {
        Objects.requireNonNull(account, "account");
        Objects.requireNonNull(cluster, "cluster");
        if (endMillis < startMillis) {
            throw new IllegalArgumentException("usage interval ends before it starts");
        }
    }
}
