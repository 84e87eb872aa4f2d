package dev.allot.scheduler;

import dev.allot.schemas.catalogue.EventSerdes;
import java.util.HashMap;
import java.util.Map;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.serialization.StringSerializer;

/** The one place the service's Kafka clients are configured. */
final class KafkaClients {

    /** Records as large as a journal entry of a big step (the journal topic allows 16 MiB). */
    static final int MAX_RECORD_BYTES = 16 * 1024 * 1024;

    private KafkaClients() {
    }

    /** The cluster's transactional producer: one transactional id per cluster, so a newer instance fences an older one. */
    static KafkaProducer<String, byte[]> transactionalProducer(Settings settings) {
        Map<String, Object> config = new HashMap<>();
        config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, settings.bootstrapServers());
        config.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, settings.transactionalId());
        config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        config.put(ProducerConfig.LINGER_MS_CONFIG, 0);
        config.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, MAX_RECORD_BYTES);
        config.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, 30_000);
        // A fenced (zombie) instance must find out quickly rather than block on its next send.
        config.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 10_000);
        config.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000);
        config.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 10_000);
        return new KafkaProducer<>(config, new StringSerializer(), new ByteArraySerializer());
    }

    /**
     * A read_committed consumer of raw bytes, offsets committed only through the producer's transactions.
     *
     * @param groupId the group whose committed offsets say what is applied; null for the journal reader
     */
    static KafkaConsumer<byte[], byte[]> consumer(Settings settings, String groupId) {
        Map<String, Object> config = new HashMap<>();
        config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, settings.bootstrapServers());
        if (groupId != null) {
            config.put(ConsumerConfig.GROUP_ID_CONFIG, groupId);
        }
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        config.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 500);
        config.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, MAX_RECORD_BYTES);
        return new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    /** Serialises the Avro records the loop writes (Confluent wire format, schemas through the registry). */
    static Serializer<SpecificRecord> valueSerializer(Settings settings) {
        return EventSerdes.valueSerializer(settings.registryUrl());
    }

    static Admin admin(Settings settings) {
        return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, settings.bootstrapServers()));
    }
}
