package dev.allot.accounting.book;

/**
 * Books usage and demand facts into hourly rows. The same code runs inside the Kafka Streams
 * processor (rows in RocksDB) and in the audit replay (rows in memory), so both agree.
 */
public final class UsageBook {

    private final RowStore rows;

    public UsageBook(RowStore rows) {
        this.rows = rows;
    }

    /**
     * Adds the fact to the hours its interval overlaps, in proportion to the overlap.
     * {@code added} sees each (hour, column, GPU-seconds) so a caller can keep running sums.
     */
    public void apply(Fact fact, Added added) {
        if (fact.kind() == Fact.Kind.NODE) {
            return;
        }
        int column = fact.kind() == Fact.Kind.DEMAND ? Row.DEMANDED : fact.charged() ? Row.CHARGED : Row.UNALLOCATED;
        Hours.split(fact.start(), fact.end(), fact.gpuSeconds(), (hour, gpuSeconds) -> {
            double[] row = rows.get(fact.cluster(), fact.account(), hour);
            row = row == null ? Row.empty() : row.clone();
            row[column] += gpuSeconds;
            rows.put(fact.cluster(), fact.account(), hour, row);
            added.added(hour, column, gpuSeconds);
        });
    }

    /** Sum of an account's own rows over [fromHour, toHour]. */
    public static double[] sum(RowStore rows, String cluster, String account, long fromHour, long toHour) {
        double[] sum = Row.empty();
        rows.range(cluster, account, fromHour, toHour, (hour, row) -> Row.addTo(sum, row));
        return sum;
    }

    @FunctionalInterface
    public interface Added {
        void added(long hourStart, int column, double gpuSeconds);

        Added NONE = (h, c, g) -> { };
    }
}
