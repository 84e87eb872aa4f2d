package dev.allot.budget;

import static org.awaitility.Awaitility.await;

import dev.allot.schemas.catalogue.Topic;
import dev.allot.testsupport.AllotInfrastructure;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;

/** Reads and writes the shared test broker's topics. */
public final class TestLog {

    private TestLog() {
    }

    private static final dev.allot.budget.kafka.EventDecoder DECODER =
            new dev.allot.budget.kafka.EventDecoder(AllotInfrastructure.shared().registryUrl());

    public static AllotInfrastructure infra() {
        return AllotInfrastructure.shared();
    }

    /** Records of the topic whose key matches, read from the beginning until {@code enough} holds. */
    public static <V extends SpecificRecord> List<ConsumerRecord<String, V>> read(Topic<String, V> topic,
            Predicate<String> key, Predicate<List<ConsumerRecord<String, V>>> enough) {
        List<ConsumerRecord<String, V>> seen = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = infra().rawConsumer()) {
            consumer.subscribe(Set.of(topic.name()));
            await().atMost(Duration.ofSeconds(30)).until(() -> {
                consumer.poll(Duration.ofMillis(200)).forEach(r -> {
                    String k = r.key() == null ? null : new String(r.key(), java.nio.charset.StandardCharsets.UTF_8);
                    if (k != null && key.test(k)) {
                        // decoded as the service decodes (see EventDecoder for why not the registry's reader)
                        V value = DECODER.decode(r.topic(), r.headers(), r.value(), topic.valueType());
                        seen.add(new ConsumerRecord<>(r.topic(), r.partition(), r.offset(), k, value));
                    }
                });
                return enough.test(seen);
            });
        }
        return seen.stream().collect(Collectors.toList());
    }

    private static KafkaProducer<String, SpecificRecord> producer;

    public static synchronized <V extends SpecificRecord> void publish(Topic<String, V> topic, String key, V value) {
        if (producer == null) {
            producer = infra().producer();
        }
        try {
            producer.send(new ProducerRecord<>(topic.name(), key, value)).get();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    public static String uniquePrefix() {
        return "t" + java.util.UUID.randomUUID().toString().replace("-", "").substring(0, 10);
    }
}
