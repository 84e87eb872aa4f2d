package dev.allot.accounting.book;

/** Hourly rows by (cluster, account, hour): RocksDB in the service, a hash map in the replay. */
public interface RowStore {
    double[] get(String cluster, String account, long hourStart);

    void put(String cluster, String account, long hourStart, double[] row);

    /** Calls {@code sink} for each stored hour in [fromHour, toHour], in order. */
    void range(String cluster, String account, long fromHour, long toHour, RowSink sink);

    void delete(String cluster, String account, long hourStart);

    @FunctionalInterface
    interface RowSink {
        void row(long hourStart, double[] row);
    }
}
