package dev.allot.accounting.streams;

import dev.allot.edge.EventReader;
import dev.allot.edge.EventSerde;
import dev.allot.schemas.catalogue.Topic;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.serialization.Serde;

/**
 * Value serdes of the catalogue types: the edge's (registry serializer, {@link EventReader}) in the service,
 * plain Avro in TopologyTestDriver tests.
 */
@FunctionalInterface
public interface AccountingSerdes {

    <V extends SpecificRecord> Serde<V> serde(Topic<String, V> topic);

    /** Serdes through the registry, sharing one reader (and its schema cache). */
    static AccountingSerdes registry(String registryUrl) {
        EventReader reader = new EventReader(registryUrl);
        return new AccountingSerdes() {
            @Override
            public <V extends SpecificRecord> Serde<V> serde(Topic<String, V> topic) {
                return new EventSerde<>(topic, reader, registryUrl);
            }
        };
    }
}
