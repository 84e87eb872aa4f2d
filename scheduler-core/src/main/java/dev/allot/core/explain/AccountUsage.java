package dev.allot.core.explain;

/**
 * A budget's usage on a cluster over the lookback window, rolled up over its subtree.
 *
 * @param fraction the account's fraction of the cluster (product of sibling fractions down its path)
 */
public record AccountUsage(String account, String cluster, double chargedGpuSeconds, double unallocatedGpuSeconds,
        double entitledGpuSeconds, double ratio, double fraction) {
}
