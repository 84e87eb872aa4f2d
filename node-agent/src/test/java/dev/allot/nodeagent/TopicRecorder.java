package dev.allot.nodeagent;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;
import org.apache.avro.Schema;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.errors.WakeupException;

/**
 * Reads a topic from the beginning on a thread of its own and keeps every record, for assertions.
 *
 * <p>Values are raw Confluent wire format (magic 0, 4-byte schema id, Avro binary) decoded here with the
 * generated class's own schema, through a SpecificData bound to the class loader that loaded the class: under
 * {@code @QuarkusTest} the registry deserializer resolves generated classes through a class loader the test
 * does not see (ClassCastException). The writer schema is the same class, from the same build.
 */
final class TopicRecorder<V extends SpecificRecord> implements AutoCloseable {

    record Received<V>(String key, V value, int partition, long offset, byte[] raw) {
    }

    private final KafkaConsumer<byte[], byte[]> consumer;
    private final SpecificDatumReader<V> reader;
    private final List<Received<V>> records = new CopyOnWriteArrayList<>();
    final List<Exception> failures = new CopyOnWriteArrayList<>();
    private volatile boolean running = true;

    TopicRecorder(KafkaConsumer<byte[], byte[]> consumer, String topic, Class<V> type) {
        this.consumer = consumer;
        Schema schema = SpecificData.get().getSchema(type);
        this.reader = new SpecificDatumReader<>(schema, schema, new SpecificData(type.getClassLoader()));
        consumer.subscribe(Set.of(topic));
        Thread thread = new Thread(this::loop, "recorder-" + topic);
        thread.setDaemon(true);
        thread.start();
    }

    private void loop() {
        try {
            while (running) {
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(50))) {
                    try {
                        records.add(new Received<>(record.key() == null ? null : new String(record.key()),
                                decode(record.value()), record.partition(), record.offset(), record.value()));
                    } catch (Exception e) {
                        failures.add(e); // shared topics may hold other tests' garbage
                    }
                }
            }
        } catch (WakeupException e) {
            // closing
        } finally {
            consumer.close();
        }
    }

    private V decode(byte[] value) throws java.io.IOException {
        ByteBuffer buffer = ByteBuffer.wrap(value);
        if (buffer.get() != 0) {
            throw new IllegalArgumentException("not the Confluent wire format");
        }
        buffer.getInt(); // schema id
        return reader.read(null, DecoderFactory.get().binaryDecoder(value, 5, value.length - 5, null));
    }

    List<Received<V>> records() {
        return List.copyOf(records);
    }

    List<V> values(Predicate<Received<V>> filter) {
        return records.stream().filter(filter).map(Received::value).toList();
    }

    @Override
    public void close() {
        running = false;
        consumer.wakeup();
    }
}
