package dev.allot.edge;

import dev.allot.schemas.catalogue.EventSerdes;
import dev.allot.schemas.catalogue.Topic;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serializer;

/**
 * The value serde of one catalogue topic, for Kafka Streams: written through the registry in the Confluent
 * wire format ({@link EventSerdes#valueSerializer}), read by {@link EventReader}. Either side throws
 * {@link RegistryUnavailable} when the registry does not answer (the writer side through
 * {@link RegistryAwareSerializer}).
 */
public final class EventSerde<V extends SpecificRecord> implements Serde<V> {

    private final Serializer<V> serializer;
    private final Deserializer<V> deserializer;

    public EventSerde(Topic<String, V> topic, EventReader reader, String registryUrl) {
        this.serializer = new RegistryAwareSerializer<>(EventSerdes.valueSerializer(registryUrl), registryUrl);
        this.deserializer = new EventDeserializer<>(reader, topic.valueType());
    }

    @Override
    public Serializer<V> serializer() {
        return serializer;
    }

    @Override
    public Deserializer<V> deserializer() {
        return deserializer;
    }

    @Override
    public void close() {
        serializer.close();
    }
}
