package dev.allot.accounting.streams;

import dev.allot.accounting.book.Row;
import java.nio.ByteBuffer;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serializer;

/** An hourly row as 3 big-endian doubles (24 bytes). */
public final class RowSerde implements Serde<double[]>, Serializer<double[]>, Deserializer<double[]> {

    @Override
    public byte[] serialize(String topic, double[] row) {
        if (row == null) {
            return null;
        }
        ByteBuffer b = ByteBuffer.allocate(8 * Row.SIZE);
        for (int i = 0; i < Row.SIZE; i++) {
            b.putDouble(row[i]);
        }
        return b.array();
    }

    @Override
    public double[] deserialize(String topic, byte[] data) {
        if (data == null) {
            return null;
        }
        ByteBuffer b = ByteBuffer.wrap(data);
        double[] row = new double[Row.SIZE];
        for (int i = 0; i < Row.SIZE && b.remaining() >= 8; i++) {
            row[i] = b.getDouble();
        }
        return row;
    }

    @Override
    public Serializer<double[]> serializer() {
        return this;
    }

    @Override
    public Deserializer<double[]> deserializer() {
        return this;
    }

    @Override
    public void close() {
    }

    @Override
    public void configure(java.util.Map<String, ?> configs, boolean isKey) {
    }
}
