package dev.allot.core.metrics;

import java.util.Arrays;

/**
 * GPU-seconds per bucket (one hour by default) over a fixed period [0, buckets x bucketSeconds).
 * Intervals are spread over the buckets they overlap; anything outside the period is dropped.
 */
public final class HourlySeries {
    private final long bucketSeconds;
    private final double[] values;

    public HourlySeries(int buckets, long bucketSeconds) {
        if (buckets < 0 || bucketSeconds <= 0) {
            throw new IllegalArgumentException("buckets >= 0 and bucketSeconds > 0 required");
        }
        this.bucketSeconds = bucketSeconds;
        this.values = new double[buckets];
    }

    /** A series of hourly buckets covering {@code periodSeconds} (the last bucket may be partial). */
    public static HourlySeries hourly(long periodSeconds) {
        return new HourlySeries((int) ((periodSeconds + 3599) / 3600), 3600);
    }

    public int buckets() {
        return values.length;
    }

    public long bucketSeconds() {
        return bucketSeconds;
    }

    /** Adds {@code rate} (GPUs) held during [start, end) seconds: rate x overlap to each bucket. */
    public void addInterval(double startSeconds, double endSeconds, double rate) {
        if (!(endSeconds > startSeconds) || rate == 0) {
            return;
        }
        double s = Math.max(0, startSeconds);
        double e = Math.min((double) values.length * bucketSeconds, endSeconds);
        if (!(e > s)) {
            return;
        }
        int first = (int) (s / bucketSeconds);
        int last = (int) Math.min(values.length - 1, (long) Math.ceil(e / bucketSeconds) - 1);
        for (int b = first; b <= last; b++) {
            double bs = (double) b * bucketSeconds;
            double be = bs + bucketSeconds;
            double overlap = Math.min(be, e) - Math.max(bs, s);
            if (overlap > 0) {
                values[b] += overlap * rate;
            }
        }
    }

    /** Adds an amount (GPU-seconds) to one bucket directly. */
    public void add(int bucket, double gpuSeconds) {
        values[bucket] += gpuSeconds;
    }

    public double get(int bucket) {
        return values[bucket];
    }

    public double total() {
        double t = 0;
        for (double v : values) {
            t += v;
        }
        return t;
    }

    /** A copy of the buckets. */
    public double[] toArray() {
        return Arrays.copyOf(values, values.length);
    }
}
