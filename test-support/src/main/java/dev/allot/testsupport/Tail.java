package dev.allot.testsupport;

import dev.allot.edge.EventReader;
import dev.allot.edge.InvalidRecord;
import dev.allot.edge.Redelivery;
import dev.allot.edge.RegistryUnavailable;
import dev.allot.schemas.catalogue.Topic;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.errors.WakeupException;

/**
 * Follows a topic on a thread of its own (read_committed, from the beginning, in a group of its own) and
 * keeps every record, typed by the edge's {@link EventReader}; tests await on what arrived. Records that
 * are not of the topic's type (other tests' garbage on shared topics) are skipped and counted.
 */
public final class Tail<V extends SpecificRecord> implements AutoCloseable {

    private final List<ConsumerRecord<String, V>> received = new CopyOnWriteArrayList<>();
    private final AtomicInteger skipped = new AtomicInteger();
    private final KafkaConsumer<byte[], byte[]> consumer;
    private final Thread thread;
    private volatile boolean closed;

    public Tail(AllotInfrastructure infra, Topic<String, V> topic) {
        this(infra.clients(), topic);
    }

    /** Follows {@code topic} of the broker and registry {@code clients} name (e.g. a {@link RestartableInfrastructure}'s). */
    public Tail(dev.allot.edge.KafkaClients clients, Topic<String, V> topic) {
        String group = "test-" + java.util.UUID.randomUUID();
        this.consumer = clients.consumer(group, java.util.Map.of(
                org.apache.kafka.clients.consumer.ConsumerConfig.GROUP_ID_CONFIG, group));
        EventReader reader = clients.reader();
        Class<V> type = topic.valueType();
        consumer.subscribe(Set.of(topic.name()));
        thread = new Thread(() -> follow(reader, type), "tail-" + topic.name());
        thread.setDaemon(true);
        thread.start();
    }

    private void follow(EventReader reader, Class<V> type) {
        try (consumer) {
            while (!closed) {
                ConsumerRecords<byte[], byte[]> batch = consumer.poll(Duration.ofMillis(100));
                for (ConsumerRecord<byte[], byte[]> r : batch) {
                    if (r.value() == null) {
                        continue; // a tombstone
                    }
                    try {
                        V value = reader.read(r.value(), type);
                        received.add(new ConsumerRecord<>(r.topic(), r.partition(), r.offset(),
                                r.key() == null ? null : new String(r.key(), StandardCharsets.UTF_8), value));
                    } catch (InvalidRecord e) {
                        skipped.incrementAndGet();
                    } catch (RegistryUnavailable e) {
                        Redelivery.seekBack(consumer, batch, r); // the next poll brings it again
                        break;
                    }
                }
            }
        } catch (WakeupException e) {
            // closing
        }
    }

    /** Values of the records that match, in arrival order. */
    public List<V> values(Predicate<ConsumerRecord<String, V>> filter) {
        return received.stream().filter(filter).map(ConsumerRecord::value).toList();
    }

    /** Every record so far (key as a string, value typed), in arrival order. */
    public List<ConsumerRecord<String, V>> records() {
        return List.copyOf(received);
    }

    /** How many records were not of the topic's type. */
    public int skipped() {
        return skipped.get();
    }

    @Override
    public void close() throws InterruptedException {
        closed = true;
        consumer.wakeup();
        thread.join(5000);
    }
}
