package dev.allot.accounting.streams;

import dev.allot.accounting.book.RowKey;
import dev.allot.accounting.book.RowStore;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/** Rows in a Kafka Streams key-value store (RocksDB); read-only when built over an interactive query. */
public final class KvRowStore implements RowStore {

    private final ReadOnlyKeyValueStore<String, double[]> read;
    private final KeyValueStore<String, double[]> write;

    public KvRowStore(ReadOnlyKeyValueStore<String, double[]> read) {
        this.read = read;
        this.write = read instanceof KeyValueStore<String, double[]> kv ? kv : null;
    }

    @Override
    public double[] get(String cluster, String account, long hourStart) {
        return read.get(RowKey.row(cluster, account, hourStart));
    }

    @Override
    public void put(String cluster, String account, long hourStart, double[] row) {
        write.put(RowKey.row(cluster, account, hourStart), row);
    }

    @Override
    public void range(String cluster, String account, long fromHour, long toHour, RowSink sink) {
        if (fromHour > toHour) {
            return;
        }
        try (KeyValueIterator<String, double[]> it = read.range(RowKey.row(cluster, account, Math.max(0, fromHour)),
                RowKey.row(cluster, account, toHour))) {
            while (it.hasNext()) {
                KeyValue<String, double[]> kv = it.next();
                sink.row(RowKey.hourOfRow(kv.key), kv.value);
            }
        }
    }

    @Override
    public void delete(String cluster, String account, long hourStart) {
        write.delete(RowKey.row(cluster, account, hourStart));
    }
}
