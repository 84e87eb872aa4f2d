package dev.allot.scheduler;

import dev.allot.edge.EventReader;
import dev.allot.edge.KafkaClients;
import dev.allot.edge.security.KafkaSecurity;
import java.util.HashMap;
import java.util.Map;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.Serializer;

/**
 * The scheduler's Kafka clients, built by the shared edge ({@link KafkaClients}: raw-bytes
 * read_committed consumers without auto-commit, idempotent producers) with what the scheduler does
 * differently in one place: large records (a queue snapshot of a big cluster), and a transactional
 * producer that finds out quickly when it is fenced.
 */
final class SchedulerClients {

    /** Records as large as a queue snapshot of a big cluster. */
    static final int MAX_RECORD_BYTES = 16 * 1024 * 1024;

    private final Settings settings;
    private final KafkaClients kafka;

    SchedulerClients(Settings settings, KafkaSecurity security) {
        this.settings = settings;
        this.kafka = new KafkaClients(settings.bootstrapServers(), settings.registryUrl(), security);
    }

    /** The edge's reader of input records (the one decoder). */
    EventReader reader() {
        return kafka.reader();
    }

    /** The cluster's transactional producer: one transactional id per cluster, so a newer instance fences an older one. */
    KafkaProducer<String, byte[]> transactionalProducer() {
        Map<String, Object> overrides = new HashMap<>();
        overrides.put(ProducerConfig.LINGER_MS_CONFIG, 0);
        overrides.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, MAX_RECORD_BYTES);
        overrides.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, 30_000);
        // A fenced (zombie) instance must find out quickly rather than block on its next send.
        overrides.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 10_000);
        overrides.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000);
        overrides.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 10_000);
        return kafka.transactionalProducer(settings.consumerName(), settings.transactionalId(), overrides);
    }

    /**
     * The inputs' consumer, a member of the cluster's group: the group's {@link ActiveStandbyAssignor} gives every
     * input partition to one member (the active instance), and the group's committed offsets say which records
     * are applied. It leaves the group when closed, so a stopped active instance hands over at once; a killed one
     * after {@code failoverAfter}.
     */
    KafkaConsumer<byte[], byte[]> inputConsumer() {
        int session = (int) settings.standby().failoverAfter().toMillis();
        Map<String, Object> overrides = new HashMap<>();
        overrides.put(ConsumerConfig.GROUP_ID_CONFIG, settings.groupId());
        overrides.put(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, ActiveStandbyAssignor.class.getName());
        overrides.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, session);
        overrides.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, Math.max(100, session / 5));
        overrides.put(ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG, (int) settings.standby().stallLimit().toMillis());
        overrides.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 500);
        // The broker holds a fetch with nothing new at most this long; a partition resumed meanwhile (job-requests
        // once the facts are read) joins the next fetch only: 500 ms by default, a delay of every restart.
        overrides.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 100);
        overrides.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, MAX_RECORD_BYTES);
        return kafka.consumer(settings.consumerName(), overrides);
    }

    /**
     * The log's reader during a rebuild (no group: it assigns every partition of one topic at a time). A short fetch
     * wait: each topic's read ended with a fetch the broker held for Kafka's 500 ms, 2.5 s of a 2.7 s rebuild of
     * 1,125 records (388 ms of CPU) in chaos run 17.
     */
    KafkaConsumer<byte[], byte[]> rebuildConsumer() {
        return kafka.consumer(settings.consumerName() + "/rebuild", Map.of(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 5000,
                ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, MAX_RECORD_BYTES,
                ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 20));
    }

    /** Serialises the Avro records the loop writes (Confluent wire format, schemas through the registry). */
    Serializer<SpecificRecord> valueSerializer() {
        return dev.allot.schemas.catalogue.EventSerdes.valueSerializer(settings.registryUrl());
    }

    Admin admin() {
        return kafka.admin();
    }
}
