package dev.allot.edge;

import dev.allot.edge.security.KafkaSecurity;
import dev.allot.schemas.catalogue.EventSerdes;
import dev.allot.schemas.catalogue.Topic;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The one place that builds Kafka client configuration for Allot's services: where the broker and the
 * registry are, and the defaults every client shares. Each method gives a fresh, mutable config; the
 * {@code overrides} of the client-building methods go last, for what one service does differently
 * (a group id, a delivery timeout, a start at the end of the log).
 *
 * <p>The defaults, and why:
 * <ul>
 *   <li>consumers read raw bytes (keys and values) so each record is decoded by {@link #reader()} and a bad one
 *       becomes a dead letter instead of an exception out of {@code poll}; {@code read_committed} (the
 *       scheduler writes in transactions: aborted decisions never show); no auto-commit (services either keep
 *       no offsets, or commit them in their own transaction); from the earliest offset.</li>
 *   <li>producers are idempotent with {@code acks=all} (a write is acknowledged once the broker has it) and
 *       {@code linger.ms=1}; String keys.</li>
 *   <li>Kafka Streams: exactly-once v2, from the earliest offset.</li>
 * </ul>
 * Every client, admin and Streams configuration carries the instance's {@link KafkaSecurity} (how it
 * authenticates to the broker: plaintext, or SASL/SCRAM as the service's own principal).
 * One {@link EventReader} per instance, shared by everything built here (its caches are per reader).
 */
public final class KafkaClients {

    /** A transactional producer's {@code retry.backoff.ms}: see {@link #transactionalProducerConfig}. */
    static final int TRANSACTION_RETRY_BACKOFF_MS = 5;

    private final String bootstrapServers;
    private final String registryUrl;
    private final KafkaSecurity security;
    private final EventReader reader;

    /** A plaintext client (no authentication): tests on the plaintext broker. */
    public KafkaClients(String bootstrapServers, String registryUrl) {
        this(bootstrapServers, registryUrl, KafkaSecurity.PLAINTEXT);
    }

    /** @param registryUrl the registry's base URL ({@code http://host:port}) or its v3 API URL */
    public KafkaClients(String bootstrapServers, String registryUrl, KafkaSecurity security) {
        this.bootstrapServers = bootstrapServers;
        this.registryUrl = registryUrl;
        this.security = security;
        this.reader = new EventReader(registryUrl);
    }

    /** How these clients authenticate. */
    public KafkaSecurity security() {
        return security;
    }

    public String bootstrapServers() {
        return bootstrapServers;
    }

    public String registryUrl() {
        return registryUrl;
    }

    /** The reader of catalogue values, shared by this instance's clients. */
    public EventReader reader() {
        return reader;
    }

    /** The settings of the registry serializer (Confluent wire format, content ids, auto-registration). */
    public Map<String, Object> registryConfig() {
        return EventSerdes.registryConfig(registryUrl);
    }

    /** What every client sets: the broker, its id, and how keys and values travel. */
    private Map<String, Object> client(String clientId, String keyConfig, Class<?> keyType, String valueConfig,
                                       Class<?> valueType) {
        Map<String, Object> config = new HashMap<>(security.clientConfig());
        config.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        config.put(CommonClientConfigs.CLIENT_ID_CONFIG, clientId);
        config.put(keyConfig, keyType);
        config.put(valueConfig, valueType);
        return config;
    }

    // ---------------------------------------------------------------- consumers

    /** Raw-bytes consumer settings: read_committed, no auto-commit, from the earliest offset; no group. */
    public Map<String, Object> consumerConfig(String clientId) {
        Map<String, Object> config = client(clientId, ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG,
                ByteArrayDeserializer.class, ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        return config;
    }

    /** A consumer of raw bytes; decode values with {@link #reader()}. */
    public KafkaConsumer<byte[], byte[]> consumer(String clientId, Map<String, ?> overrides) {
        Map<String, Object> config = consumerConfig(clientId);
        config.putAll(overrides);
        return new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    /**
     * A consumer of one event type, decoded by {@link #reader()}. A bad record surfaces from {@code poll} as a
     * {@link org.apache.kafka.common.errors.RecordDeserializationException}: for tools and tests; services read
     * raw bytes instead so that they can dead-letter.
     */
    public <V extends SpecificRecord> KafkaConsumer<String, V> eventConsumer(Class<V> type, String clientId,
                                                                             Map<String, ?> overrides) {
        Map<String, Object> config = consumerConfig(clientId);
        config.remove(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG);
        config.remove(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG);
        config.putAll(overrides);
        return new KafkaConsumer<>(config, new StringDeserializer(), new EventDeserializer<>(reader, type));
    }

    // ---------------------------------------------------------------- producers

    /** Idempotent producer settings: acks=all, linger 1 ms, String keys, byte-array values. */
    public Map<String, Object> producerConfig(String clientId) {
        Map<String, Object> config = client(clientId, ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class,
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        config.put(ProducerConfig.LINGER_MS_CONFIG, 1);
        return config;
    }

    /** A producer of catalogue events, written through the registry in the Confluent wire format. */
    public <V extends SpecificRecord> KafkaProducer<String, V> eventProducer(String clientId,
                                                                             Map<String, ?> overrides) {
        Map<String, Object> config = producerConfig(clientId);
        config.remove(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG);
        config.remove(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG);
        config.putAll(registryConfig());
        config.putAll(overrides);
        return new KafkaProducer<>(config, new StringSerializer(), EventSerdes.<V>valueSerializer(registryUrl));
    }

    /**
     * A transactional producer of pre-serialised values (String keys, byte-array values), e.g. a service that
     * serialises its outputs itself and commits them with its input offsets.
     */
    public KafkaProducer<String, byte[]> transactionalProducer(String clientId, String transactionalId,
                                                               Map<String, ?> overrides) {
        return new KafkaProducer<>(transactionalProducerConfig(clientId, transactionalId, overrides),
                new StringSerializer(), new ByteArraySerializer());
    }

    /**
     * A transactional producer's settings: {@link #producerConfig}, the transactional id, a short first retry.
     *
     * <p>A transaction begun right after the previous commit finds the coordinator still writing that commit's
     * markers: its {@code AddPartitionsToTxn} and {@code TxnOffsetCommit} come back {@code CONCURRENT_TRANSACTIONS}
     * (the broker counted 274 and 154 of them over 200 back-to-back transactions), and the client waits
     * {@code retry.backoff.ms} before asking again (20 ms for {@code AddPartitionsToTxn}): Kafka's default 100 ms, so
     * one commit in ten took over 100 ms on an idle broker. A loop that commits as soon as it has input commits back
     * to back. The client's transaction requests retry at this fixed interval, so 5 ms also means a retry every 5 ms
     * while a coordinator loads: a few hundred small requests on the loopback, for a moment.
     */
    public Map<String, Object> transactionalProducerConfig(String clientId, String transactionalId,
                                                           Map<String, ?> overrides) {
        Map<String, Object> config = producerConfig(clientId);
        config.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
        config.put(ProducerConfig.RETRY_BACKOFF_MS_CONFIG, TRANSACTION_RETRY_BACKOFF_MS);
        config.putAll(overrides);
        return config;
    }

    // ---------------------------------------------------------------- admin and streams

    public Map<String, Object> adminConfig() {
        Map<String, Object> config = new HashMap<>(security.clientConfig());
        config.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        return config;
    }

    public Admin admin() {
        return Admin.create(adminConfig());
    }

    /**
     * Kafka Streams settings: exactly-once v2, inputs from the earliest offset. (Names as strings: this module
     * does not depend on kafka-streams.)
     */
    public Properties streamsConfig(String applicationId, Map<String, ?> overrides) {
        Properties config = new Properties();
        config.putAll(security.clientConfig());
        config.put("bootstrap.servers", bootstrapServers);
        config.put("application.id", applicationId);
        config.put("processing.guarantee", "exactly_once_v2");
        config.put("consumer." + ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        config.putAll(overrides);
        return config;
    }

    /** The value serde of a catalogue topic, for Kafka Streams (registry serializer, {@link #reader()}). */
    public <V extends SpecificRecord> Serde<V> serde(Topic<String, V> topic) {
        return new EventSerde<>(topic, reader, registryUrl);
    }
}
