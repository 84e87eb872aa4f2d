package dev.allot.budget.ui;

import dev.allot.schemas.AccountDemand;
import java.util.HashMap;
import java.util.Map;

/**
 * Hourly demand and delivery per cluster and account, from the scheduler's {@code AccountDemand}
 * intervals (time-averaged GPUs asked for and held by allocated jobs), spread over the hours they
 * overlap as the accounting-service spreads them. The owed-hours charts are drawn from these; hours
 * older than {@link #RETAIN_HOURS} are dropped.
 */
final class DemandHours {

    static final long HOUR = 3_600_000L;
    static final int RETAIN_HOURS = 8 * 24;

    /** cluster -> account -> hour start -> [demanded GPU-s, delivered GPU-s]. */
    private final Map<String, Map<String, Map<Long, double[]>>> byCluster = new HashMap<>();
    private long newestHour;

    synchronized void demand(AccountDemand d) {
        long start = d.getIntervalStart().toEpochMilli();
        long end = d.getIntervalEnd().toEpochMilli();
        Map<Long, double[]> hours = byCluster.computeIfAbsent(d.getCluster(), c -> new HashMap<>())
                .computeIfAbsent(d.getAccount(), a -> new HashMap<>());
        for (long h = start - Math.floorMod(start, HOUR); h < end; h += HOUR) {
            double seconds = (Math.min(end, h + HOUR) - Math.max(start, h)) / 1000.0;
            double[] row = hours.computeIfAbsent(h, x -> new double[2]);
            row[0] += d.getDemandedGpus() * seconds;
            row[1] += d.getRunningGpus() * seconds;
            newestHour = Math.max(newestHour, h);
        }
        if (hours.size() > RETAIN_HOURS + 24) {
            hours.keySet().removeIf(h -> h < newestHour - RETAIN_HOURS * HOUR);
        }
    }

    /** [demanded, delivered] GPU-seconds per hour of [firstHour, firstHour + n h), summed over the accounts. */
    synchronized double[][] series(String cluster, Iterable<String> accounts, long firstHour, int n) {
        double[][] out = new double[2][n];
        Map<String, Map<Long, double[]>> clusterHours = byCluster.getOrDefault(cluster, Map.of());
        for (String account : accounts) {
            Map<Long, double[]> hours = clusterHours.get(account);
            if (hours == null) {
                continue;
            }
            for (int i = 0; i < n; i++) {
                double[] row = hours.get(firstHour + i * HOUR);
                if (row != null) {
                    out[0][i] += row[0];
                    out[1][i] += row[1];
                }
            }
        }
        return out;
    }

    synchronized java.util.Set<String> accounts(String cluster) {
        return java.util.Set.copyOf(byCluster.getOrDefault(cluster, Map.of()).keySet());
    }
}
