package dev.allot.accounting.streams;

import dev.allot.schemas.catalogue.EventDeserializer;
import dev.allot.schemas.catalogue.EventSerdes;
import dev.allot.schemas.catalogue.Topic;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;

/** Value serdes of the catalogue types: the registry's in the service, plain Avro in TopologyTestDriver tests. */
@FunctionalInterface
public interface AccountingSerdes {

    <V extends SpecificRecord> Serde<V> serde(Topic<String, V> topic);

    static AccountingSerdes registry(String registryUrl) {
        return new AccountingSerdes() {
            @Override
            public <V extends SpecificRecord> Serde<V> serde(Topic<String, V> topic) {
                return Serdes.serdeFrom(EventSerdes.<V>valueSerializer(registryUrl),
                        new EventDeserializer<>(topic.valueType(), registryUrl));
            }
        };
    }
}
