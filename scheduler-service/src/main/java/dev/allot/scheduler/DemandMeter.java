package dev.allot.scheduler;

import dev.allot.schemas.AccountDemand;
import dev.allot.schemas.catalogue.Topics;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Time-averaged demand per account over fixed intervals, from samples of the projection taken on
 * every tick (step function: a sample holds until the next one). Emits one {@link AccountDemand}
 * per account that asked for anything during the interval.
 */
final class DemandMeter {
    private final String cluster;
    private final long intervalMillis;
    private long intervalStart = -1;
    private long lastSample = -1;
    private Map<String, int[]> lastDemand = Map.of();
    /** account -> integrals in GPU-millis: [waiting, running allocated]. */
    private final Map<String, double[]> integrals = new TreeMap<>();

    DemandMeter(String cluster, long intervalMillis) {
        this.cluster = cluster;
        this.intervalMillis = intervalMillis;
    }

    void sample(long now, Map<String, int[]> demand, List<Output> out) {
        if (intervalStart < 0) {
            intervalStart = now;
            lastSample = now;
            lastDemand = copy(demand);
            return;
        }
        long end = Math.min(now, intervalStart + intervalMillis);
        integrate(end);
        if (now >= intervalStart + intervalMillis) {
            flush(intervalStart + intervalMillis, out);
            intervalStart += intervalMillis;
            if (now - intervalStart >= intervalMillis) {
                intervalStart = now; // the loop was away for more than an interval: start afresh
            }
            lastSample = intervalStart;
            integrate(now);
        }
        lastDemand = copy(demand);
    }

    private void integrate(long until) {
        long dt = until - lastSample;
        if (dt <= 0) {
            return;
        }
        lastDemand.forEach((account, d) -> {
            double[] acc = integrals.computeIfAbsent(account, a -> new double[2]);
            acc[0] += (double) d[0] * dt;
            acc[1] += (double) d[1] * dt;
        });
        lastSample = until;
    }

    private void flush(long end, List<Output> out) {
        double length = end - intervalStart;
        integrals.forEach((account, acc) -> {
            double waiting = acc[0] / length;
            double runningGpus = acc[1] / length;
            out.add(new Output(Topics.ACCOUNT_DEMAND.name(), Topics.accountKey(cluster, account),
                    new AccountDemand(account, cluster, Instant.ofEpochMilli(intervalStart), Instant.ofEpochMilli(end),
                            waiting + runningGpus, runningGpus, waiting)));
        });
        integrals.clear();
    }

    private static Map<String, int[]> copy(Map<String, int[]> demand) {
        Map<String, int[]> c = new HashMap<>();
        demand.forEach((k, v) -> c.put(k, v.clone()));
        return c;
    }
}
