package dev.allot.budget.tree;

import java.time.Instant;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/** The latest rolling-window usage of every (cluster, account), from the accounting-service. */
public final class UsageBook {

    /** One account's usage on one cluster over the lookback window. */
    public record Usage(String cluster, String account, Instant windowStart, Instant windowEnd,
                        double chargedGpuSeconds, double unallocatedGpuSeconds,
                        Double entitledGpuSeconds, Double ratio) {
    }

    private final Map<String, Map<String, Usage>> byAccount = new ConcurrentHashMap<>();

    public void record(Usage usage) {
        byAccount.computeIfAbsent(usage.account(), a -> new ConcurrentHashMap<>()).merge(usage.cluster(), usage,
                // the topic is compacted and keyed, but a replay may bring an older window after a newer one
                (old, fresh) -> fresh.windowEnd().isBefore(old.windowEnd()) ? old : fresh);
    }

    /** Usage of an account per cluster, sorted by cluster. */
    public Map<String, Usage> byCluster(String account) {
        return new TreeMap<>(byAccount.getOrDefault(account, Map.of()));
    }
}
