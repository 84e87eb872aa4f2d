package dev.allot.testsupport;

import dev.allot.edge.EventReader;
import dev.allot.edge.KafkaClients;
import dev.allot.edge.security.KafkaAccess;
import dev.allot.edge.security.KafkaSecurity;
import dev.allot.schemas.catalogue.Topic;
import dev.allot.schemas.catalogue.TopicCreator;
import dev.allot.schemas.catalogue.Topics;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.Function;
import java.util.concurrent.CompletableFuture;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.common.test.TestKitNodes;

/**
 * A real Kafka 4.1 KRaft broker (in this JVM, through {@link KafkaClusterTestKit}) and a real schema
 * registry (a child process), both on loopback, started once per JVM and shared by every test in it.
 * With {@code -Dallot.infra=testcontainers} both run as containers instead ({@link ContainerInfrastructure}).
 * Every catalogue topic exists before the first test runs. Stopped by a shutdown hook.
 *
 * <p>{@link #secured()} is another instance: the broker of {@code bin/allot infra up} (SASL/SCRAM, the
 * StandardAuthorizer and {@link KafkaAccess}' ACLs, see {@link LocalBroker}) with a registry of its own. Its
 * {@link #clients()} authenticate as the super user; {@link #security(String)} gives a principal's credentials.
 */
public final class AllotInfrastructure {

    private static volatile AllotInfrastructure shared;
    private static volatile AllotInfrastructure securedShared;

    /** Where the broker and the registry run: {@code in-jvm} (the default) or {@code testcontainers}. */
    public static final String INFRA_PROPERTY = "allot.infra";

    private final String bootstrapServers;
    private final String registryUrl;
    private final String kind;
    private final Runnable stop;
    private final Duration startup;
    private final KafkaClients clients;
    private final Function<String, KafkaSecurity> credentials;

    private AllotInfrastructure(String bootstrapServers, String registryUrl, String kind, Runnable stop, Duration startup) {
        this(bootstrapServers, registryUrl, kind, stop, startup, user -> KafkaSecurity.PLAINTEXT);
    }

    private AllotInfrastructure(String bootstrapServers, String registryUrl, String kind, Runnable stop, Duration startup,
                                Function<String, KafkaSecurity> credentials) {
        this.bootstrapServers = bootstrapServers;
        this.registryUrl = registryUrl;
        this.kind = kind;
        this.stop = stop;
        this.startup = startup;
        this.credentials = credentials;
        this.clients = new KafkaClients(bootstrapServers, registryUrl, credentials.apply(KafkaAccess.ADMIN));
    }

    /**
     * The JVM-wide secured instance (SASL/SCRAM and ACLs, a registry of its own), started on first use. Only the
     * tests that prove the security use it: the suite's default broker stays plaintext for speed.
     */
    public static AllotInfrastructure secured() {
        AllotInfrastructure current = securedShared;
        if (current == null) {
            synchronized (AllotInfrastructure.class) {
                current = securedShared;
                if (current == null) {
                    current = startSecured();
                    securedShared = current;
                    AllotInfrastructure stopping = current;
                    Runtime.getRuntime().addShutdownHook(new Thread(stopping::stop, "allot-secured-infra-stop"));
                }
            }
        }
        return current;
    }

    private static AllotInfrastructure startSecured() {
        long began = System.nanoTime();
        Path workDir = workDir();
        CompletableFuture<SchemaRegistryProcess> registry =
                CompletableFuture.supplyAsync(() -> SchemaRegistryProcess.start(workDir));
        SecuredBroker kafka;
        try {
            kafka = SecuredBroker.start(workDir);
        } catch (RuntimeException e) {
            registry.thenAccept(SchemaRegistryProcess::close);
            throw e;
        }
        try {
            SchemaRegistryProcess started = registry.join();
            return new AllotInfrastructure(kafka.bootstrapServers(), started.url(), "in-jvm-secured", () -> {
                started.close();
                kafka.close();
            }, Duration.ofNanos(System.nanoTime() - began), kafka::security);
        } catch (RuntimeException e) {
            kafka.close();
            throw e;
        }
    }

    /** True for {@link #secured()}: clients must authenticate, and ACLs decide. */
    public boolean isSecured() {
        return credentials.apply(KafkaAccess.ADMIN).authenticated();
    }

    /** How {@code user} (a {@link KafkaAccess} principal or {@link KafkaAccess#ADMIN}) authenticates here. */
    public KafkaSecurity security(String user) {
        return credentials.apply(user);
    }

    /** The edge's client builder for this broker and registry, authenticated as {@code user}. */
    public KafkaClients clientsAs(String user) {
        return new KafkaClients(bootstrapServers, registryUrl, security(user));
    }

    /** The JVM-wide instance, started on first use (broker and registry start in parallel). */
    public static AllotInfrastructure shared() {
        AllotInfrastructure current = shared;
        if (current == null) {
            synchronized (AllotInfrastructure.class) {
                current = shared;
                if (current == null) {
                    current = start();
                    shared = current;
                    AllotInfrastructure stopping = current;
                    Runtime.getRuntime().addShutdownHook(new Thread(stopping::stop, "allot-infra-stop"));
                }
            }
        }
        return current;
    }

    private static AllotInfrastructure start() {
        String kind = System.getProperty(INFRA_PROPERTY, "in-jvm");
        return switch (kind) {
            case "in-jvm" -> startInJvm();
            case "testcontainers" -> startContainers();
            default -> throw new IllegalArgumentException("-D" + INFRA_PROPERTY + " must be in-jvm or testcontainers, not '"
                    + kind + "'");
        };
    }

    private static AllotInfrastructure startInJvm() {
        long began = System.nanoTime();
        Path workDir = workDir();
        CompletableFuture<SchemaRegistryProcess> registry =
                CompletableFuture.supplyAsync(() -> SchemaRegistryProcess.start(workDir));
        KafkaClusterTestKit kafka = startKafka(workDir);
        try {
            SchemaRegistryProcess started = registry.join();
            AllotInfrastructure infra = new AllotInfrastructure(kafka.bootstrapServers(), started.url(), "in-jvm", () -> {
                started.close();
                closeQuietly(kafka);
            }, Duration.ofNanos(System.nanoTime() - began));
            infra.createTopics(Topics.ALL);
            return infra;
        } catch (RuntimeException e) {
            closeQuietly(kafka);
            registry.thenAccept(SchemaRegistryProcess::close);
            throw e;
        }
    }

    private static AllotInfrastructure startContainers() {
        long began = System.nanoTime();
        ContainerInfrastructure containers = ContainerInfrastructure.start();
        try {
            AllotInfrastructure infra = new AllotInfrastructure(containers.bootstrapServers(), containers.registryUrl(),
                    "testcontainers", containers::close, Duration.ofNanos(System.nanoTime() - began));
            infra.createTopics(Topics.ALL);
            return infra;
        } catch (RuntimeException e) {
            containers.close();
            throw e;
        }
    }

    private static KafkaClusterTestKit startKafka(Path workDir) {
        try {
            Path base = Files.createTempDirectory(workDir, "kafka-");
            KafkaClusterTestKit cluster = new KafkaClusterTestKit.Builder(new TestKitNodes.Builder()
                    .setCombined(true)
                    .setNumBrokerNodes(1)
                    .setNumControllerNodes(1)
                    .setBaseDirectory(base)
                    .build())
                    .setConfigProp("offsets.topic.replication.factor", "1")
                    .setConfigProp("offsets.topic.num.partitions", "3")
                    .setConfigProp("transaction.state.log.replication.factor", "1")
                    .setConfigProp("transaction.state.log.min.isr", "1")
                    .setConfigProp("transaction.state.log.num.partitions", "3")
                    .setConfigProp("group.initial.rebalance.delay.ms", "0")
                    .setConfigProp("share.coordinator.state.topic.replication.factor", "1")
                    .setConfigProp("auto.create.topics.enable", "false")
                    .setConfigProp("num.partitions", "1")
                    .setDeleteOnClose(true)
                    .build();
            cluster.format();
            cluster.startup();
            cluster.waitForReadyBrokers();
            return cluster;
        } catch (Exception e) {
            throw new IllegalStateException("could not start the in-JVM Kafka broker", e);
        }
    }

    private static Path workDir() {
        try {
            Path dir = Path.of(System.getProperty("allot.test.workdir",
                    System.getProperty("java.io.tmpdir") + "/allot-test-infra"));
            Files.createDirectories(dir);
            return dir;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    public String bootstrapServers() {
        return bootstrapServers;
    }

    /** Base URL of the registry, e.g. {@code http://127.0.0.1:41234}. */
    public String registryUrl() {
        return registryUrl;
    }

    /** The Confluent-compatible API root of the registry. */
    public String confluentCompatibleUrl() {
        return registryUrl + "/apis/ccompat/v7";
    }

    /** {@code in-jvm} or {@code testcontainers} (see {@link #INFRA_PROPERTY}). */
    public String kind() {
        return kind;
    }

    /** How long the first start took (broker and registry, in parallel, plus topics). */
    public Duration startupTime() {
        return startup;
    }

    /** Creates topics (idempotent); partitions and cleanup policy come from the catalogue. */
    public void createTopics(List<? extends Topic<?, ?>> topics) {
        try (Admin admin = admin()) {
            TopicCreator.createTopics(admin, topics, (short) 1);
        }
    }

    /** A copy of a catalogue topic under a fresh unique name, for a test that needs an empty log. */
    public <K, V> Topic<K, V> freshTopic(Topic<K, V> template) {
        Topic<K, V> fresh = new Topic<>(template.name() + "-" + UUID.randomUUID().toString().substring(0, 8),
                template.keyType(), template.valueType(), template.partitions(), template.cleanupPolicy(),
                template.keyMeaning());
        createTopics(List.of(fresh));
        return fresh;
    }

    /** The edge's client builder for this broker and registry (one shared {@link EventReader}). */
    public KafkaClients clients() {
        return clients;
    }

    public Admin admin() {
        return clients.admin();
    }

    /** A producer of Avro values through the registry, in the Confluent wire format. */
    public <V extends SpecificRecord> KafkaProducer<String, V> producer() {
        return clients.eventProducer(uniqueId("test-producer"), Map.of(ProducerConfig.LINGER_MS_CONFIG, 0));
    }

    /**
     * A consumer of one event type from the beginning of the log, in a group of its own, decoded by the edge's
     * {@link EventReader} (works inside Quarkus tests too: classes come from {@code type}'s class loader).
     */
    public <V extends SpecificRecord> KafkaConsumer<String, V> consumer(Class<V> type) {
        String group = uniqueId("test");
        return clients.eventConsumer(type, group, Map.of(ConsumerConfig.GROUP_ID_CONFIG, group));
    }

    /** A consumer of raw bytes from the beginning of the log, in a group of its own. */
    public KafkaConsumer<byte[], byte[]> rawConsumer() {
        String group = uniqueId("test");
        return clients.consumer(group, Map.of(ConsumerConfig.GROUP_ID_CONFIG, group));
    }

    /** Client ids and groups of their own: no two test clients share JMX names or offsets. */
    private static String uniqueId(String prefix) {
        return prefix + "-" + UUID.randomUUID();
    }

    /** Polls until {@code count} records arrived or the timeout passed; returns what arrived. */
    public static <K, V> List<ConsumerRecord<K, V>> pollUntil(KafkaConsumer<K, V> consumer, String topic, int count,
                                                               Duration timeout) {
        consumer.subscribe(Set.of(topic));
        List<ConsumerRecord<K, V>> received = new ArrayList<>();
        long deadline = System.nanoTime() + timeout.toNanos();
        while (received.size() < count && System.nanoTime() < deadline) {
            consumer.poll(Duration.ofMillis(100)).forEach(received::add);
        }
        return received;
    }

    private void stop() {
        stop.run();
    }

    private static void closeQuietly(KafkaClusterTestKit kafka) {
        try {
            kafka.close();
        } catch (Exception ignored) {
            // the JVM is going away
        }
    }
}
