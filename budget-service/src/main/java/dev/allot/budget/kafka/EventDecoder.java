package dev.allot.budget.kafka;

import dev.allot.schemas.catalogue.EventDeserializer;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.header.Headers;

/**
 * Reads catalogue values into the generated classes of the event contract, one
 * {@link EventDeserializer} per class (it explains why not the registry's own specific reader).
 */
public final class EventDecoder {

    private final String registryUrl;
    private final Map<Class<?>, EventDeserializer<?>> deserializers = new ConcurrentHashMap<>();

    public EventDecoder(String registryUrl) {
        this.registryUrl = registryUrl;
    }

    public <V extends SpecificRecord> V decode(String topic, Headers headers, byte[] value, Class<V> type) {
        @SuppressWarnings("unchecked")
        EventDeserializer<V> deserializer = (EventDeserializer<V>) deserializers.computeIfAbsent(type,
                t -> new EventDeserializer<>(type, registryUrl));
        return deserializer.deserialize(topic, headers, value);
    }
}
