package dev.allot.core.metrics;

import java.util.Arrays;
import java.util.EnumMap;
import java.util.Map;

/**
 * Waits per job class. A job's wait is the time from submission to its first placement; a job
 * still waiting when the period ends counts with the time it has waited so far (leaving it out
 * would flatter a policy that starves it).
 */
public final class WaitStats {
    private final Map<JobClass, double[]> values = new EnumMap<>(JobClass.class);
    private final Map<JobClass, Integer> sizes = new EnumMap<>(JobClass.class);
    private final Map<JobClass, Boolean> sorted = new EnumMap<>(JobClass.class);

    public WaitStats() {
        for (JobClass c : JobClass.values()) {
            values.put(c, new double[16]);
            sizes.put(c, 0);
            sorted.put(c, true);
        }
    }

    public void add(JobClass c, double waitSeconds) {
        if (waitSeconds < 0 || Double.isNaN(waitSeconds)) {
            throw new IllegalArgumentException("wait must be >= 0: " + waitSeconds);
        }
        double[] a = values.get(c);
        int n = sizes.get(c);
        if (n == a.length) {
            a = Arrays.copyOf(a, n * 2);
            values.put(c, a);
        }
        a[n] = waitSeconds;
        sizes.put(c, n + 1);
        sorted.put(c, false);
    }

    public int count(JobClass c) {
        return sizes.get(c);
    }

    /** The waits of a class, sorted ascending (a copy). */
    public double[] sortedWaits(JobClass c) {
        double[] a = values.get(c);
        int n = sizes.get(c);
        if (!sorted.get(c)) {
            Arrays.sort(a, 0, n);
            sorted.put(c, true);
        }
        return Arrays.copyOf(a, n);
    }

    /** Nearest-rank percentile of the class's waits in seconds; 0 when the class has no job. */
    public double percentile(JobClass c, double p) {
        double[] s = sortedWaits(c);
        return s.length == 0 ? 0.0 : Percentiles.ofSorted(s, p);
    }

    public double p50(JobClass c) {
        return percentile(c, 0.5);
    }

    public double p90(JobClass c) {
        return percentile(c, 0.9);
    }
}
