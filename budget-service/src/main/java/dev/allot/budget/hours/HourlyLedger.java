package dev.allot.budget.hours;

import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * GPU-seconds per hour, per cluster and leaf account, from the log: charged and unallocated from the
 * node agents' {@code usage} tiles, demanded from the scheduler's {@code account-demand} intervals.
 * Intervals are spread over the hours they overlap, in proportion (as the accounting-service books
 * them), so the owed-hours ledger (scheduler-core's {@code OwedHours}) can be read here without a
 * call to another service. Only the last {@link #KEPT_HOURS} hours before the newest one booked on a
 * cluster are kept: enough for a 7-day window and the hour in progress.
 */
public final class HourlyLedger {

    public static final long HOUR = 3_600_000L;
    public static final int KEPT_HOURS = 8 * 24;

    static final int CHARGED = 0;
    static final int UNALLOCATED = 1;
    static final int DEMANDED = 2;

    /** One hour's sums in GPU-seconds. */
    public record Hour(long start, double charged, double unallocated, double demanded) {
    }

    private final Map<String, Map<String, TreeMap<Long, double[]>>> byCluster = new HashMap<>();
    private final Map<String, Long> newestHour = new HashMap<>();

    public static long hourOf(long millis) {
        return Math.floorDiv(millis, HOUR) * HOUR;
    }

    public synchronized void usage(String cluster, String account, long start, long end, double gpuSeconds,
                                   boolean charged) {
        book(cluster, account, start, end, gpuSeconds, charged ? CHARGED : UNALLOCATED);
    }

    /** {@code demandedGpus} time-averaged over [start, end), booked as GPU-seconds. */
    public synchronized void demand(String cluster, String account, long start, long end, double demandedGpus) {
        book(cluster, account, start, end, demandedGpus * Math.max(0, end - start) / 1000.0, DEMANDED);
    }

    private void book(String cluster, String account, long start, long end, double gpuSeconds, int column) {
        if (!(gpuSeconds >= 0) || Double.isInfinite(gpuSeconds) || end < start) {
            throw new IllegalArgumentException("not bookable: " + gpuSeconds + " GPU-s over [" + start + ", " + end + ")");
        }
        TreeMap<Long, double[]> hours = byCluster.computeIfAbsent(cluster, c -> new HashMap<>())
                .computeIfAbsent(account, a -> new TreeMap<>());
        long first = hourOf(start);
        long last = end <= start ? first : hourOf(end - 1);
        double length = end - start;
        for (long h = first; h <= last; h += HOUR) {
            double part = length <= 0 ? gpuSeconds
                    : gpuSeconds * (Math.min(end, h + HOUR) - Math.max(start, h)) / length;
            hours.computeIfAbsent(h, x -> new double[3])[column] += part;
        }
        if (last > newestHour.getOrDefault(cluster, Long.MIN_VALUE)) {
            newestHour.put(cluster, last);
            forgetBefore(cluster, last - (KEPT_HOURS - 1) * HOUR);
        }
    }

    private void forgetBefore(String cluster, long firstKept) {
        byCluster.getOrDefault(cluster, Map.of()).values().forEach(hours -> hours.headMap(firstKept).clear());
    }

    /**
     * The hours [fromHour, toHour) of {@code account} and every account under it (path prefix), one
     * entry per hour, zero where nothing was booked.
     */
    public synchronized Hour[] series(String cluster, String account, long fromHour, long toHour) {
        int n = (int) Math.max(0, (toHour - fromHour) / HOUR);
        double[][] sums = new double[n][3];
        byCluster.getOrDefault(cluster, Map.of()).forEach((leaf, hours) -> {
            if (leaf.equals(account) || leaf.startsWith(account + "/")) {
                hours.subMap(fromHour, toHour).forEach((h, row) -> {
                    double[] sum = sums[(int) ((h - fromHour) / HOUR)];
                    for (int i = 0; i < 3; i++) {
                        sum[i] += row[i];
                    }
                });
            }
        });
        Hour[] series = new Hour[n];
        for (int i = 0; i < n; i++) {
            series[i] = new Hour(fromHour + i * HOUR, sums[i][CHARGED], sums[i][UNALLOCATED], sums[i][DEMANDED]);
        }
        return series;
    }

    /** Clusters with anything booked, sorted. */
    public synchronized java.util.SortedSet<String> clusters() {
        return new java.util.TreeSet<>(byCluster.keySet());
    }

}
