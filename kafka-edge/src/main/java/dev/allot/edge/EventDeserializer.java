package dev.allot.edge;

import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.serialization.Deserializer;

/**
 * A Kafka {@link Deserializer} over {@link EventReader}, for Kafka Streams and typed consumers. A null value
 * (a tombstone) stays null; otherwise it throws what the reader throws: {@link InvalidRecord} (dead-letter)
 * or {@link RegistryUnavailable} (retry).
 */
public final class EventDeserializer<V extends SpecificRecord> implements Deserializer<V> {

    private final EventReader reader;
    private final Class<V> type;

    public EventDeserializer(EventReader reader, Class<V> type) {
        this.reader = reader;
        this.type = type;
    }

    @Override
    public V deserialize(String topic, byte[] bytes) {
        return bytes == null ? null : reader.read(bytes, type);
    }
}
