package dev.allot.accounting;

import dev.allot.schemas.catalogue.EventDeserializer;
import dev.allot.testsupport.AllotInfrastructure;
import java.util.Map;
import java.util.UUID;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * Consumers of catalogue values that decode with a class loader that sees the generated classes
 * (test-support's consumer() hits a class-loader split inside {@code @QuarkusTest}).
 */
public final class Consumers {

    private Consumers() {
    }

    public static <V extends SpecificRecord> KafkaConsumer<String, V> of(AllotInfrastructure infra, Class<V> type) {
        return new KafkaConsumer<>(Map.of("bootstrap.servers", infra.bootstrapServers(),
                "group.id", "test-" + UUID.randomUUID(), "auto.offset.reset", "earliest",
                "enable.auto.commit", false, "isolation.level", "read_committed"),
                new StringDeserializer(), new EventDeserializer<>(type, infra.registryUrl()));
    }
}
