package dev.allot.scheduler;

import dev.allot.schemas.catalogue.Topic;
import dev.allot.testsupport.AllotInfrastructure;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.apache.avro.Schema;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;

/**
 * Follows a topic (read_committed, from the beginning) on a thread of its own; tests await on what
 * arrived. Decodes with the module's {@link AvroDecoder} (see there why not the Apicurio deserialiser).
 */
final class Tail<V extends SpecificRecord> implements AutoCloseable {
    private final List<ConsumerRecord<String, V>> received = new CopyOnWriteArrayList<>();
    private final Thread thread;
    private volatile boolean closed;

    Tail(AllotInfrastructure infra, Topic<String, V> topic) {
        KafkaConsumer<byte[], byte[]> consumer = infra.rawConsumer();
        AvroDecoder decoder = new AvroDecoder(infra.registryUrl());
        Class<V> type = topic.valueType();
        Schema schema;
        try {
            schema = (Schema) type.getMethod("getClassSchema").invoke(null);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
        thread = new Thread(() -> {
            try (consumer) {
                consumer.subscribe(Set.of(topic.name()));
                while (!closed) {
                    for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(100))) {
                        V value;
                        try {
                            value = decoder.decode(r.value(), type, schema);
                        } catch (RuntimeException e) {
                            continue; // other tests' garbage
                        }
                        received.add(new ConsumerRecord<>(r.topic(), r.partition(), r.offset(),
                                r.key() == null ? null : new String(r.key(), java.nio.charset.StandardCharsets.UTF_8),
                                value));
                    }
                }
            }
        }, "tail-" + topic.name());
        thread.setDaemon(true);
        thread.start();
    }

    List<V> values(Predicate<ConsumerRecord<String, V>> filter) {
        return received.stream().filter(filter).map(ConsumerRecord::value).collect(Collectors.toList());
    }

    List<ConsumerRecord<String, V>> records() {
        return List.copyOf(received);
    }

    @Override
    public void close() throws InterruptedException {
        closed = true;
        thread.join(5000);
    }
}
