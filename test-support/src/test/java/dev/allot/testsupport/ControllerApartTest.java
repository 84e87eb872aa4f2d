package dev.allot.testsupport;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.edge.KafkaClients;
import dev.allot.edge.security.KafkaAccess;
import dev.allot.edge.security.KafkaSecurity;
import dev.allot.schemas.catalogue.Topics;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.utils.Time;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code bin/allot}'s broker with its KRaft controller in a process of its own ({@link LocalBroker.Layout}): the two
 * configurations {@link LocalBroker#prepare} writes start as two nodes (here two servers in this JVM), the broker
 * serves the catalogue with the security of its mode, and a broker stopped and started again serves what it had
 * while the controller stays. Storage formatted combined (a stack made before) stays combined.
 */
class ControllerApartTest {

    @TempDir
    Path dir;

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void givenTheControllerApart_whenTheBrokerRestarts_thenItServesWhatItHadUnderTheSameController(boolean secured)
            throws Exception {
        LocalBroker broker = new LocalBroker(dir.resolve("kafka"), LoopbackPorts.free(), LoopbackPorts.free(), secured)
                .withControllerApart();
        broker.prepare();
        assertThat(broker.layout()).isEqualTo(LocalBroker.Layout.CONTROLLER_APART);
        Properties controllerConfig = KafkaSecurity.load(broker.controllerProperties());
        Properties brokerConfig = KafkaSecurity.load(broker.serverProperties());
        assertThat(controllerConfig.getProperty("process.roles")).isEqualTo("controller");
        assertThat(brokerConfig.getProperty("process.roles")).isEqualTo("broker");
        assertThat(brokerConfig.getProperty("listeners")).doesNotContain("CONTROLLER");

        KafkaRaftServer controller = start(controllerConfig);
        try {
            KafkaRaftServer server = start(brokerConfig);
            KafkaSecurity writer = broker.security(KafkaAccess.BUDGET_SERVICE.principal());
            String key = "job-" + UUID.randomUUID();
            try {
                awaitServing(broker);
                broker.setUp();
                try (KafkaProducer<String, byte[]> producer = new KafkaProducer<String, byte[]>(
                        clients(broker, writer).producerConfig("test-" + UUID.randomUUID()))) {
                    producer.send(new ProducerRecord<>(Topics.JOB_REQUESTS.name(), key,
                            "before".getBytes(StandardCharsets.UTF_8))).get();
                }
            } finally {
                stop(server);
            }
            server = start(brokerConfig); // the controller ran on; the broker registers with it again
            try {
                awaitServing(broker);
                try (KafkaProducer<String, byte[]> producer = new KafkaProducer<String, byte[]>(
                        clients(broker, writer).producerConfig("test-" + UUID.randomUUID()))) {
                    producer.send(new ProducerRecord<>(Topics.JOB_REQUESTS.name(), key,
                            "after".getBytes(StandardCharsets.UTF_8))).get();
                }
                assertThat(valuesOf(broker, key)).containsExactly("before", "after");
            } finally {
                stop(server);
            }
        } finally {
            stop(controller);
        }
    }

    @Test
    void givenStorageFormattedCombined_whenTheControllerIsAskedApart_thenItStaysCombined() throws Exception {
        Path kafka = dir.resolve("kafka");
        new LocalBroker(kafka, LoopbackPorts.free(), LoopbackPorts.free(), false).prepare();
        Files.delete(kafka.resolve("layout")); // as a stack formatted before the layouts were written down

        LocalBroker asked = new LocalBroker(kafka, LoopbackPorts.free(), LoopbackPorts.free(), false)
                .withControllerApart();
        asked.prepare();

        assertThat(asked.layout()).isEqualTo(LocalBroker.Layout.COMBINED);
        assertThat(KafkaSecurity.load(asked.serverProperties()).getProperty("process.roles"))
                .isEqualTo("broker,controller");
        assertThat(asked.controllerDir()).doesNotExist();
    }

    private static KafkaRaftServer start(Properties config) {
        KafkaRaftServer server = new KafkaRaftServer(new KafkaConfig(config, false), Time.SYSTEM);
        server.startup();
        return server;
    }

    private static void stop(KafkaRaftServer server) {
        server.shutdown();
        server.awaitShutdown();
    }

    private static void awaitServing(LocalBroker broker) {
        Map<String, Object> config = new LinkedHashMap<>(broker.security(KafkaAccess.ADMIN).clientConfig());
        config.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
        try (Admin admin = Admin.create(config)) {
            org.awaitility.Awaitility.await().atMost(Duration.ofMinutes(2)).ignoreExceptions()
                    .until(() -> !admin.describeCluster().nodes().get().isEmpty());
        }
    }

    private static KafkaClients clients(LocalBroker broker, KafkaSecurity security) {
        return new KafkaClients(broker.bootstrapServers(), "http://127.0.0.1:1", security);
    }

    /** Every value under {@code key} in job-requests, read from the start by the admin. */
    private static List<String> valuesOf(LocalBroker broker, String key) {
        Map<String, Object> config = new LinkedHashMap<>(broker.security(KafkaAccess.ADMIN).clientConfig());
        config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
        config.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG,
                org.apache.kafka.common.serialization.StringDeserializer.class.getName());
        config.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG,
                org.apache.kafka.common.serialization.StringDeserializer.class.getName());
        List<String> values = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(config)) {
            List<TopicPartition> partitions = consumer.partitionsFor(Topics.JOB_REQUESTS.name()).stream()
                    .map(p -> new TopicPartition(p.topic(), p.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> ends = consumer.endOffsets(partitions);
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                    if (r.key().equals(key)) {
                        values.add(r.value());
                    }
                }
                return partitions.stream().allMatch(p -> consumer.position(p) >= ends.get(p));
            });
        }
        return values;
    }
}
