package dev.allot.accounting.api;

import static dev.allot.accounting.Events.budget;
import static dev.allot.accounting.Events.demand;
import static dev.allot.accounting.Events.node;
import static dev.allot.accounting.Events.usage;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.allot.accounting.streams.AccountingListener;
import dev.allot.accounting.streams.AccountingSerdes;
import dev.allot.accounting.streams.AccountingSettings;
import dev.allot.accounting.streams.AccountingStreamsMain;
import dev.allot.accounting.streams.AccountingTopics;
import dev.allot.accounting.streams.AccountingTopology;
import dev.allot.accounting.streams.BudgetDeadLetters;
import dev.allot.schemas.BudgetUsage;
import dev.allot.schemas.DeadLetter;
import dev.allot.schemas.catalogue.EventSerdes;
import dev.allot.schemas.catalogue.Topics;
import dev.allot.testsupport.RestartableInfraTestResource;
import dev.allot.testsupport.RestartableInfrastructure;
import dev.allot.testsupport.Tail;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.ThreadMetadata;
import org.eclipse.microprofile.config.ConfigProvider;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Bad input and a registry outage for the accounting-service as it runs (Kafka Streams, exactly once), on a broker
 * and registry of this test's own (test-support's {@link RestartableInfrastructure}, whose registry is stopped for
 * real): usage it cannot read while the registry is down waits (the stream thread is replaced and reads it again),
 * is not dead-lettered, and is booked once the registry is back; a flood of garbage and wrong-schema records on
 * every input topic (usage, account-demand, node-status, budgets), while usage flows, is dead-lettered record by
 * record, once each, with its reason, and every GPU-second of the good usage is in budget-usage; and another
 * instance that restores the global budgets store on a fresh state directory sends none of them again.
 */
@QuarkusTest
@TestProfile(AccountingInputFaultsTest.OwnBroker.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class AccountingInputFaultsTest {

    /** Only the restartable broker: the module's global AllotInfraTestResource would point the service elsewhere. */
    public static final class OwnBroker implements QuarkusTestProfile {
        @Override
        public boolean disableGlobalTestResources() {
            return true;
        }

        @Override
        public List<TestResourceEntry> testResources() {
            return List.of(new TestResourceEntry(RestartableInfraTestResource.class));
        }
    }

    /** Bad records per input topic; {@code -Dallot.flood.records=10000} for the issue's full figure. */
    static final int FLOOD = Integer.getInteger("allot.flood.records", 1_000);
    static final Duration WAIT = Duration.ofMinutes(Math.max(3, FLOOD / 1_000));
    static final String CONSUMER = "accounting-service";
    static final List<String> INPUTS = List.of(Topics.USAGE.name(), Topics.ACCOUNT_DEMAND.name(),
            Topics.NODE_STATUS.name(), Topics.BUDGETS.name());

    @Inject
    KafkaStreams streams;

    RestartableInfrastructure infra;
    KafkaProducer<String, SpecificRecord> producer;
    KafkaProducer<String, byte[]> raw;
    Serializer<SpecificRecord> serializer;
    Tail<BudgetUsage> budgetUsage;
    Tail<DeadLetter> deadLetters;
    String id;
    String cluster;
    String root;

    @BeforeAll
    void given_a_broker_of_our_own_with_a_tree_and_a_node_of_eight_gpus() throws Exception {
        infra = RestartableInfrastructure.dedicated();
        producer = infra.clients().eventProducer("accounting-faults-" + UUID.randomUUID(), Map.of());
        raw = new KafkaProducer<>(Map.of("bootstrap.servers", infra.bootstrapServers(), "linger.ms", 5),
                new StringSerializer(), new ByteArraySerializer());
        serializer = EventSerdes.valueSerializer(infra.registryUrl());
        budgetUsage = new Tail<>(infra.clients(), Topics.BUDGET_USAGE);
        deadLetters = new Tail<>(infra.clients(), Topics.DEAD_LETTERS);
        id = UUID.randomUUID().toString().substring(0, 8);
        cluster = "faults-" + id;
        root = "lab-" + id;
        long now = System.currentTimeMillis();
        producer.send(new ProducerRecord<>(Topics.BUDGETS.name(), root, budget(root, null, 1, now - 3_600_000L)));
        for (String team : List.of("team-a", "team-b")) {
            producer.send(new ProducerRecord<>(Topics.BUDGETS.name(), root + "/" + team,
                    budget(root + "/" + team, root, 1, now - 3_600_000L)));
        }
        producer.send(new ProducerRecord<>(Topics.NODE_STATUS.name(), cluster + "-n1",
                node(cluster + "-n1", cluster, 8, now))).get(1, TimeUnit.MINUTES);
        await().atMost(WAIT).until(() -> streams.state() == KafkaStreams.State.RUNNING);
    }

    @AfterAll
    void close() throws Exception {
        infra.startRegistry();
        budgetUsage.close();
        deadLetters.close();
        producer.close();
        raw.close();
    }

    @Test
    @Order(1)
    void given_the_registry_is_down_when_usage_it_has_not_seen_the_schema_of_arrives_with_garbage_then_it_waits_and_books_it()
            throws Exception {
        String team = root + "/team-a";
        long now = System.currentTimeMillis();
        // Encoded while the registry answers; this service has read no usage yet, so it has never resolved the id.
        byte[] usage = serializer.serialize(Topics.USAGE.name(),
                usage("outage-" + id, cluster, team, now - 60_000, now, 120, true));
        Set<String> threadsBefore = threadNames();
        infra.stopRegistry();
        RecordMetadata sent;
        RecordMetadata garbage;
        try {
            sent = send(Topics.USAGE.name(), "outage-" + id, usage).get(1, TimeUnit.MINUTES);
            // garbage is the record's fault, but its dead letter is written through the registry too
            garbage = send(Topics.USAGE.name(), "garbage-" + id, "not avro".getBytes(StandardCharsets.UTF_8))
                    .get(1, TimeUnit.MINUTES);
            // it cannot read the usage: the stream thread gives up its tasks and a new one reads it again, and again
            await().atMost(WAIT).pollInterval(Duration.ofMillis(100))
                    .until(() -> !threadsBefore.containsAll(threadNames()));
            assertThat(charged(team)).isIn(null, 0.0);
        } finally {
            infra.startRegistry();
        }
        await().atMost(WAIT).until(() -> Double.valueOf(120).equals(charged(team)));
        await().atMost(WAIT).until(() -> lettersAt(Set.of(at(garbage))).size() == 1);
        assertThat(lettersAt(Set.of(at(sent)))).isEmpty();
        assertThat(streams.state()).isEqualTo(KafkaStreams.State.RUNNING);
    }

    @Test
    @Order(2)
    void given_a_flood_of_bad_records_on_every_input_topic_while_usage_flows_then_each_is_dead_lettered_once_and_no_usage_is_lost()
            throws Exception {
        String team = root + "/team-b";
        Map<String, byte[]> wrongSchema = new HashMap<>();
        Map<String, byte[]> corrupt = new HashMap<>();
        long now = System.currentTimeMillis();
        SpecificRecord aUsage = usage("x", cluster, team, now - 60_000, now, 1, true);
        SpecificRecord aNode = node("x", cluster, 1, now);
        Map<String, SpecificRecord> own = Map.of(Topics.USAGE.name(), aUsage,
                Topics.ACCOUNT_DEMAND.name(), demand(cluster, team, now - 60_000, now, 1),
                Topics.NODE_STATUS.name(), aNode, Topics.BUDGETS.name(), budget(root + "/x", root, 1, now));
        for (String topic : INPUTS) {
            // a registered schema of another topic, and the topic's own schema id with corrupt Avro after it
            // (each written for its own topic: a record of another topic's subject, not a new version of this one's)
            wrongSchema.put(topic, topic.equals(Topics.USAGE.name())
                    ? serializer.serialize(Topics.NODE_STATUS.name(), aNode)
                    : serializer.serialize(Topics.USAGE.name(), aUsage));
            byte[] cut = Arrays.copyOf(serializer.serialize(topic, own.get(topic)), 7);
            cut[5] = (byte) 0xff;
            cut[6] = (byte) 0xff;
            corrupt.put(topic, cut);
        }
        Random random = new Random(14);
        List<CompletableFuture<RecordMetadata>> bad = new ArrayList<>();
        double expected = 0;
        int usages = 0;
        long began = System.nanoTime();
        for (int i = 0; i < FLOOD; i++) {
            for (String topic : INPUTS) {
                byte[] value = switch (i % 4) {
                    case 0 -> {
                        byte[] b = new byte[1 + random.nextInt(64)];
                        random.nextBytes(b);
                        b[0] = (byte) (1 + random.nextInt(100)); // not the magic byte
                        yield b;
                    }
                    case 1 -> wrongSchema.get(topic);
                    case 2 -> ByteBuffer.allocate(12).put((byte) 0).putInt(0x7fff0000 + random.nextInt(1000)).array();
                    default -> corrupt.get(topic);
                };
                bad.add(send(topic, "bad-" + id + "-" + i, value));
            }
            if (i % Math.max(1, FLOOD / 20) == 0) {
                long end = System.currentTimeMillis();
                double gpuSeconds = 60.0 * (1 + usages % 4);
                expected += gpuSeconds;
                producer.send(new ProducerRecord<>(Topics.USAGE.name(), "flood-" + id + "-" + usages,
                        usage("flood-" + id + "-" + usages, cluster, team, end - 60_000, end, gpuSeconds, true)));
                usages++;
            }
        }
        raw.flush();
        producer.flush();
        Set<String> badAt = new HashSet<>();
        for (CompletableFuture<RecordMetadata> f : bad) {
            badAt.add(at(f.get(1, TimeUnit.MINUTES)));
        }

        await().atMost(WAIT).until(() -> lettersAt(badAt).size() == badAt.size());
        long millis = (System.nanoTime() - began) / 1_000_000;
        double total = expected;
        await().atMost(WAIT).until(() -> Double.valueOf(total).equals(charged(team)));
        System.out.printf("accounting flood: %d bad records on each of %d input topics (%d), %d usage reports: every"
                        + " bad one dead-lettered, every GPU-second booked, within %d ms of the first send (%.0f dead"
                        + " letters/s; load %s)%n", FLOOD, INPUTS.size(), badAt.size(), usages, millis,
                badAt.size() * 1000.0 / Math.max(1, millis), load());

        Map<String, List<DeadLetter>> letters = lettersAt(badAt);
        assertThat(letters.values()).allSatisfy(l -> {
            assertThat(l).hasSize(1);
            assertThat(l.get(0).getReason()).startsWith("malformed: ");
        });
        for (String topic : INPUTS) {
            assertThat(letters.values().stream().map(l -> l.get(0)).filter(d -> topic.equals(d.getSourceTopic()))
                    .map(DeadLetter::getReason)).as(topic)
                    .anyMatch(r -> r.contains("not in the wire format"))
                    .anyMatch(r -> r.contains("schema-invalid: written as"))
                    .anyMatch(r -> r.contains("unknown schema content id"))
                    .anyMatch(r -> r.contains("cannot read the bytes"));
        }
        // the tree survived the garbage on budgets: the team is still entitled (one of two teams, 8 GPUs)
        BudgetUsage latest = latest(team);
        assertThat(latest.getEntitledGpuSeconds()).isNotNull().isPositive();
        assertThat(latest.getRatio()).isNotNull();
        assertThat(streams.state()).isEqualTo(KafkaStreams.State.RUNNING);

        // Another instance on a fresh state directory (a restart on a new disk, or one more instance) restores the
        // global budgets store through the budget intake: it reads every bad budget record again, and sends none of
        // their dead letters again.
        long badBudgets = badAt.stream().filter(w -> w.startsWith(Topics.BUDGETS.name() + "/")).count();
        String appId = ConfigProvider.getConfig().getValue("quarkus.kafka-streams.application-id", String.class);
        BudgetDeadLetters.Kafka again = BudgetDeadLetters.kafka(infra.clients());
        KafkaStreams second = new KafkaStreams(AccountingTopology.build(AccountingSettings.defaults(),
                AccountingTopics.catalogue(), AccountingSerdes.registry(infra.registryUrl()), AccountingListener.NONE,
                again), AccountingStreamsMain.streamsConfig(infra.clients(), appId,
                Files.createTempDirectory("accounting-again").toString(), 1));
        second.start();
        try {
            await().atMost(WAIT).until(() -> again.decided() >= badBudgets);
            assertThat(again.sentBefore()).isEqualTo(badBudgets);
            assertThat(again.decided()).isEqualTo(badBudgets);
        } finally {
            second.close(Duration.ofSeconds(30));
            again.close();
        }
        assertThat(lettersAt(badAt).values()).allSatisfy(l -> assertThat(l).hasSize(1));
    }

    private Set<String> threadNames() {
        Set<String> names = new HashSet<>();
        for (ThreadMetadata t : streams.metadataForLocalThreads()) {
            names.add(t.threadName());
        }
        return names;
    }

    private BudgetUsage latest(String account) {
        String key = Topics.accountKey(cluster, account);
        List<BudgetUsage> all = budgetUsage.values(r -> key.equals(r.key()));
        return all.isEmpty() ? null : all.get(all.size() - 1);
    }

    private Double charged(String account) {
        BudgetUsage u = latest(account);
        return u == null ? null : u.getChargedGpuSeconds();
    }

    private Map<String, List<DeadLetter>> lettersAt(Set<String> at) {
        Map<String, List<DeadLetter>> found = new HashMap<>();
        for (DeadLetter d : deadLetters.values(r -> CONSUMER.equals(r.value().getConsumer()))) {
            String where = d.getSourceTopic() + "/" + d.getPartition() + "@" + d.getOffset();
            if (at.contains(where)) {
                found.computeIfAbsent(where, k -> new ArrayList<>()).add(d);
            }
        }
        return found;
    }

    private static String at(RecordMetadata m) {
        return m.topic() + "/" + m.partition() + "@" + m.offset();
    }

    private CompletableFuture<RecordMetadata> send(String topic, String key, byte[] value) {
        CompletableFuture<RecordMetadata> sent = new CompletableFuture<>();
        raw.send(new ProducerRecord<>(topic, key, value), (m, e) -> {
            if (e != null) {
                sent.completeExceptionally(e);
            } else {
                sent.complete(m);
            }
        });
        return sent;
    }

    private static String load() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).strip();
        } catch (Exception e) {
            return "unknown";
        }
    }
}
