package dev.allot.accounting.book;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/** Rows in memory, for the replay: a hash map per (cluster, account) of hour -> row. */
public final class MemoryRowStore implements RowStore {

    private final Map<String, TreeMap<Long, double[]>> byAccount = new HashMap<>();
    private final Map<String, Set<String>> accountsByCluster = new TreeMap<>();

    @Override
    public double[] get(String cluster, String account, long hourStart) {
        TreeMap<Long, double[]> hours = byAccount.get(RowKey.account(cluster, account));
        return hours == null ? null : hours.get(hourStart);
    }

    @Override
    public void put(String cluster, String account, long hourStart, double[] row) {
        byAccount.computeIfAbsent(RowKey.account(cluster, account), k -> {
            accountsByCluster.computeIfAbsent(cluster, c -> new TreeSet<>()).add(account);
            return new TreeMap<>();
        }).put(hourStart, row);
    }

    @Override
    public void range(String cluster, String account, long fromHour, long toHour, RowSink sink) {
        TreeMap<Long, double[]> hours = byAccount.get(RowKey.account(cluster, account));
        if (hours != null && fromHour <= toHour) {
            hours.subMap(fromHour, true, toHour, true).forEach(sink::row);
        }
    }

    @Override
    public void delete(String cluster, String account, long hourStart) {
        TreeMap<Long, double[]> hours = byAccount.get(RowKey.account(cluster, account));
        if (hours != null) {
            hours.remove(hourStart);
        }
    }

    /** Accounts with rows, per cluster. */
    public Map<String, Set<String>> accountsByCluster() {
        return accountsByCluster;
    }
}
