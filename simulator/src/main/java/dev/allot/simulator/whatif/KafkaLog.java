package dev.allot.simulator.whatif;

import dev.allot.edge.InvalidRecord;
import dev.allot.edge.KafkaClients;
import dev.allot.edge.RegistryUnavailable;
import dev.allot.schemas.BudgetEvent;
import dev.allot.schemas.JobEvent;
import dev.allot.schemas.JobRequest;
import dev.allot.schemas.NodeStatus;
import dev.allot.schemas.catalogue.Topic;
import dev.allot.schemas.catalogue.Topics;
import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;

/**
 * Reads the recorded log into a {@link LogTrace}: {@code budgets}, {@code node-status}, {@code job-requests}
 * and {@code job-events}, each from its first kept offset up to the end it had when the read began (so a busy
 * cluster does not keep the read going), decoded by kafka-edge's reader (the services' own). A record that cannot
 * be decoded is counted and skipped (the services dead-letter it).
 */
public final class KafkaLog {

    /** The broker (or the registry) did not answer: exit code 3. */
    public static final class Unreachable extends RuntimeException {
        public Unreachable(String message, Throwable cause) {
            super(message, cause);
        }
    }

    private final KafkaClients clients;
    private final Map<String, Object> overrides;
    private final Duration timeout;
    private int skipped;

    /**
     * @param clientProperties extra client properties (security: SASL, TLS), from {@code --kafka-config}
     */
    public KafkaLog(String bootstrap, String registryUrl, Map<String, Object> clientProperties, Duration timeout) {
        this.clients = new KafkaClients(bootstrap, registryUrl);
        this.timeout = timeout;
        this.overrides = new HashMap<>(clientProperties);
        long ms = timeout.toMillis();
        overrides.putIfAbsent(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) Math.min(Integer.MAX_VALUE, ms));
        overrides.putIfAbsent(ConsumerConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) Math.min(Integer.MAX_VALUE, ms));
        overrides.putIfAbsent(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 5000);
        overrides.putIfAbsent(ConsumerConfig.FETCH_MAX_BYTES_CONFIG, 64 * 1024 * 1024);
    }

    /** Client properties from a Java properties file ({@code --kafka-config}). */
    public static Map<String, Object> properties(Path file) {
        if (file == null) {
            return Map.of();
        }
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(file)) {
            p.load(r);
        } catch (IOException e) {
            throw new IllegalArgumentException("--kafka-config " + file + ": cannot read it: " + e.getMessage());
        }
        Map<String, Object> m = new HashMap<>();
        p.forEach((k, v) -> m.put(String.valueOf(k), String.valueOf(v)));
        return m;
    }

    /** Records that could not be decoded (not Avro, unknown schema): left out. */
    public int skipped() {
        return skipped;
    }

    public LogTrace read() {
        LogTrace trace = new LogTrace();
        try (KafkaConsumer<byte[], byte[]> consumer = clients.consumer("allot-whatif", overrides)) {
            readTopic(consumer, Topics.BUDGETS, trace::accept);
            readTopic(consumer, Topics.NODE_STATUS, trace::accept);
            readTopic(consumer, Topics.JOB_REQUESTS, trace::accept);
            readTopic(consumer, Topics.JOB_EVENTS, trace::accept);
        } catch (org.apache.kafka.common.errors.TimeoutException e) {
            throw new Unreachable("the Kafka broker at " + clients.bootstrapServers() + " did not answer within "
                    + timeout.toSeconds() + " s (" + e.getMessage() + ")", e);
        } catch (RegistryUnavailable e) {
            throw new Unreachable("the schema registry at " + clients.registryUrl() + " did not answer: "
                    + e.getMessage(), e);
        } catch (KafkaException e) {
            throw new Unreachable("cannot read from the Kafka broker at " + clients.bootstrapServers() + ": "
                    + e.getMessage(), e);
        }
        return trace;
    }

    private <V extends org.apache.avro.specific.SpecificRecord> void readTopic(KafkaConsumer<byte[], byte[]> consumer,
            Topic<String, V> topic, Consumer<V> sink) {
        List<PartitionInfo> infos = consumer.partitionsFor(topic.name(), timeout);
        if (infos == null || infos.isEmpty()) {
            return; // a topic nothing was written to yet
        }
        List<TopicPartition> partitions = new ArrayList<>();
        infos.forEach(i -> partitions.add(new TopicPartition(i.topic(), i.partition())));
        consumer.assign(partitions);
        consumer.seekToBeginning(partitions);
        Map<TopicPartition, Long> end = consumer.endOffsets(partitions, timeout);
        List<TopicPartition> open = new ArrayList<>();
        for (TopicPartition tp : partitions) {
            if (consumer.position(tp, timeout) < end.get(tp)) {
                open.add(tp);
            }
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!open.isEmpty()) {
            var batch = consumer.poll(Duration.ofMillis(500));
            if (!batch.isEmpty()) {
                deadline = System.nanoTime() + timeout.toNanos();
            } else if (System.nanoTime() > deadline) {
                throw new org.apache.kafka.common.errors.TimeoutException("no records from " + topic.name()
                        + " although its end offsets are ahead");
            }
            for (ConsumerRecord<byte[], byte[]> r : batch) {
                TopicPartition tp = new TopicPartition(r.topic(), r.partition());
                if (r.offset() >= end.get(tp) || r.value() == null) {
                    continue; // past the end taken at the start, or a tombstone
                }
                try {
                    sink.accept(clients.reader().read(topic, r.value()));
                } catch (InvalidRecord e) {
                    skipped++;
                }
            }
            open.removeIf(tp -> consumer.position(tp, timeout) >= end.get(tp));
        }
        consumer.unsubscribe();
    }
}
