package dev.allot.core.metrics;

import java.util.Arrays;

/** Nearest-rank percentiles. */
public final class Percentiles {
    private Percentiles() {
    }

    /**
     * The nearest-rank percentile of already sorted values: the smallest value such that at least
     * {@code p} of the values are less than or equal to it. NaN for an empty array.
     *
     * @param p in (0, 1]
     */
    public static double ofSorted(double[] sorted, double p) {
        if (sorted.length == 0) {
            return Double.NaN;
        }
        if (!(p > 0 && p <= 1)) {
            throw new IllegalArgumentException("p must be in (0, 1]: " + p);
        }
        int rank = (int) Math.ceil(p * sorted.length - 1e-9);
        return sorted[Math.max(1, rank) - 1];
    }

    public static double of(double[] values, double p) {
        double[] copy = Arrays.copyOf(values, values.length);
        Arrays.sort(copy);
        return ofSorted(copy, p);
    }
}
