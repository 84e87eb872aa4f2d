package dev.allot.budget;

import static org.awaitility.Awaitility.await;

import dev.allot.schemas.catalogue.Topic;
import dev.allot.testsupport.AllotInfrastructure;
import dev.allot.testsupport.Tail;
import java.time.Duration;
import java.util.List;
import java.util.function.Predicate;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;

/** Reads and writes the shared test broker's topics. */
public final class TestLog {

    private TestLog() {
    }

    public static AllotInfrastructure infra() {
        return AllotInfrastructure.shared();
    }

    /** Records of the topic whose key matches, read from the beginning (test-support's Tail) until {@code enough} holds. */
    public static <V extends SpecificRecord> List<ConsumerRecord<String, V>> read(Topic<String, V> topic,
            Predicate<String> key, Predicate<List<ConsumerRecord<String, V>>> enough) {
        try (Tail<V> tail = new Tail<>(infra(), topic)) {
            await().atMost(Duration.ofSeconds(30)).until(() -> enough.test(matching(tail, key)));
            return matching(tail, key);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static <V extends SpecificRecord> List<ConsumerRecord<String, V>> matching(Tail<V> tail,
            Predicate<String> key) {
        return tail.records().stream().filter(r -> r.key() != null && key.test(r.key())).toList();
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

    /**
     * Records per key of the topic among the keys under {@code prefix}, once as many arrived as {@code expected}
     * sums to; every expected key is in the answer (0 when absent), and so is any key not expected.
     */
    public static <V extends SpecificRecord> java.util.Map<String, Integer> countsByKey(Topic<String, V> topic,
            String prefix, java.util.Map<String, Integer> expected) {
        int total = expected.values().stream().mapToInt(Integer::intValue).sum();
        try (Tail<V> tail = new Tail<>(infra(), topic)) {
            await().atMost(Duration.ofSeconds(30)).until(() -> matching(tail, k -> k.startsWith(prefix)).size() >= total);
            java.util.Map<String, Integer> counts = new java.util.TreeMap<>();
            expected.keySet().forEach(key -> counts.put(key, 0));
            matching(tail, k -> k.startsWith(prefix)).forEach(r -> counts.merge(r.key(), 1, Integer::sum));
            return counts;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    public static String uniquePrefix() {
        return "t" + java.util.UUID.randomUUID().toString().replace("-", "").substring(0, 10);
    }
}
