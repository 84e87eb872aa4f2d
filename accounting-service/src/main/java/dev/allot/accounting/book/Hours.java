package dev.allot.accounting.book;

/**
 * Hourly buckets. An hour is named by its start in epoch milliseconds. One hour is the documented
 * bucket size: fine enough for a 7-day window (168 buckets, the oldest leaves whole at the hour
 * boundary) and for the owed-hours ledger, which the brief defines hour by hour.
 */
public final class Hours {
    public static final long HOUR = 3_600_000L;

    private Hours() {
    }

    public static long hourOf(long millis) {
        return Math.floorDiv(millis, HOUR) * HOUR;
    }

    /**
     * Spreads {@code gpuSeconds} over [start, end) in proportion to the overlap with each hour; a
     * zero-length interval goes whole to the hour of its start. The parts add up to the total.
     */
    public static void split(long start, long end, double gpuSeconds, HourAmount sink) {
        long first = hourOf(start);
        if (end <= start || hourOf(end - 1) == first) {
            sink.add(first, gpuSeconds);
            return;
        }
        double length = end - start;
        double assigned = 0;
        for (long h = first; h < end; h += HOUR) {
            long to = Math.min(end, h + HOUR);
            long from = Math.max(start, h);
            double part = to >= end ? gpuSeconds - assigned : gpuSeconds * ((to - from) / length);
            assigned += part;
            sink.add(h, part);
        }
    }

    @FunctionalInterface
    public interface HourAmount {
        void add(long hourStart, double gpuSeconds);
    }
}
