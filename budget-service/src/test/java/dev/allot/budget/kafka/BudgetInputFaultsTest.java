package dev.allot.budget.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.allot.budget.Api;
import dev.allot.budget.LogView;
import dev.allot.schemas.BudgetUsage;
import dev.allot.schemas.JobRequest;
import dev.allot.schemas.JobSubmitted;
import dev.allot.schemas.DeadLetter;
import dev.allot.schemas.NodeRegistered;
import dev.allot.schemas.NodeStatus;
import dev.allot.schemas.UsageReported;
import dev.allot.schemas.ChargeMode;
import dev.allot.schemas.catalogue.EventSerdes;
import dev.allot.schemas.catalogue.Topic;
import dev.allot.schemas.catalogue.Topics;
import dev.allot.testsupport.RestartableInfraTestResource;
import dev.allot.testsupport.RestartableInfrastructure;
import dev.allot.testsupport.Tail;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.restassured.http.ContentType;
import jakarta.inject.Inject;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
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
import org.hamcrest.Matchers;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Bad input and a registry outage for the budget-service's log projector as it runs, on a broker and registry of
 * this test's own (test-support's {@link RestartableInfrastructure}, whose registry is stopped for real): a
 * record it cannot read while the registry is down waits, is not dead-lettered, and is applied once the registry is
 * back, while garbage read in the outage is dead-lettered once its letter can be written; a flood of garbage and
 * wrong-schema records on every topic the projector reads, while jobs are submitted through the API, is
 * dead-lettered record by record, once each, with its reason, and no accepted job is lost; and a projector
 * launched again on the same log (what a restart does: it replays from the start) sends none of them again.
 */
@QuarkusTest
@TestProfile(BudgetInputFaultsTest.OwnBroker.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class BudgetInputFaultsTest {

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

    @Inject
    LogProjector projector;
    @Inject
    KafkaSettings settings;
    @Inject
    EventPublisher publisher;
    @Inject
    MeterRegistry metrics;
    @Inject
    LogView view;

    RestartableInfrastructure infra;
    KafkaProducer<String, byte[]> raw;
    Serializer<SpecificRecord> serializer;
    Tail<DeadLetter> deadLetters;
    String id;
    String cluster;
    String team;

    String org;
    boolean given;

    @BeforeAll
    void clients() {
        infra = RestartableInfrastructure.dedicated();
        raw = new KafkaProducer<>(Map.of("bootstrap.servers", infra.bootstrapServers(), "linger.ms", 5),
                new StringSerializer(), new ByteArraySerializer());
        serializer = EventSerdes.valueSerializer(infra.registryUrl());
        deadLetters = new Tail<>(infra.clients(), Topics.DEAD_LETTERS);
        id = UUID.randomUUID().toString().substring(0, 8);
        cluster = "faults-" + id;
        org = "faults-" + id;
        team = org + "/team-a";
    }

    /** Once, from the first test (RestAssured knows the service's port only once a test runs, not in BeforeAll). */
    void given_a_team_and_a_node() throws Exception {
        if (given) {
            return;
        }
        String node = cluster + "-n1";
        send(Topics.NODE_STATUS.name(), node, serializer.serialize(Topics.NODE_STATUS.name(), NodeStatus.newBuilder()
                .setEventId(UUID.randomUUID().toString()).setOccurredAt(Instant.now()).setNodeId(node)
                .setPayload(new NodeRegistered(cluster, 8, "fake", 1L, "test-agent", null)).build()))
                .get(1, TimeUnit.MINUTES);
        await().atMost(WAIT).untilAsserted(() -> Api.asAdmin().when().get("/budgets").then()
                .body("clusters." + cluster, Matchers.notNullValue()));
        Api.asAdmin().contentType(ContentType.JSON).body("{\"share\":1}").when().put("/budgets/" + org)
                .then().statusCode(200);
        Api.asAdmin().contentType(ContentType.JSON).body("{\"share\":1,\"members\":[\"carol\"]}").when()
                .put("/budgets/" + team).then().statusCode(200);
        given = true;
    }

    @AfterAll
    void close() throws Exception {
        infra.startRegistry();
        deadLetters.close();
        raw.close();
    }

    @Test
    @Order(1)
    void given_the_registry_is_down_when_a_record_it_has_not_seen_the_schema_of_arrives_then_it_waits_and_applies_it()
            throws Exception {
        given_a_team_and_a_node();
        // Encoded while the registry answers. A budget-usage record: no test of this module writes one, so this
        // service has never resolved its schema id (a job request it may have: BrokerOutageTest writes them here).
        long now = System.currentTimeMillis();
        byte[] usage = serializer.serialize(Topics.BUDGET_USAGE.name(), BudgetUsage.newBuilder().setCluster(cluster)
                .setAccount(team).setWindowStart(Instant.ofEpochMilli(now - 3_600_000L))
                .setWindowEnd(Instant.ofEpochMilli(now)).setChargedGpuSeconds(3600).setUnallocatedGpuSeconds(0)
                .setEntitledGpuSeconds(null).setRatio(null).build());
        double waitsBefore = registryWaits();
        infra.stopRegistry();
        RecordMetadata sent;
        RecordMetadata garbage;
        try {
            sent = send(Topics.BUDGET_USAGE.name(), Topics.accountKey(cluster, team), usage).get(1, TimeUnit.MINUTES);
            // garbage is the record's fault, but its dead letter is written through the registry too
            garbage = send(Topics.USAGE.name(), "garbage-" + id, "not avro".getBytes(StandardCharsets.UTF_8))
                    .get(1, TimeUnit.MINUTES);
            // it cannot read the usage: it reads it again (and again), without a dead letter
            await().atMost(WAIT).until(() -> registryWaits() >= waitsBefore + 3);
            assertThat(view.usage().byCluster(team)).doesNotContainKey(cluster);
        } finally {
            infra.startRegistry();
        }
        await().atMost(WAIT).until(() -> view.usage().byCluster(team).containsKey(cluster));
        assertThat(view.usage().byCluster(team).get(cluster).chargedGpuSeconds()).isEqualTo(3600);
        await().atMost(WAIT).until(() -> lettersAt(Set.of(at(garbage))).size() == 1);
        assertThat(lettersAt(Set.of(at(sent)))).isEmpty();
        assertThat(projector.alive()).isTrue();
    }

    @Test
    @Order(2)
    void given_a_flood_of_bad_records_on_every_input_topic_while_jobs_are_submitted_then_each_is_dead_lettered_once_and_no_job_is_lost()
            throws Exception {
        given_a_team_and_a_node();
        List<String> inputs = LogProjector.TOPICS.stream().map(Topic::name).toList();
        long now = System.currentTimeMillis();
        byte[] aUsage = serializer.serialize(Topics.USAGE.name(), UsageReported.newBuilder().setJobId("x")
                .setCluster(cluster).setAccount(team).setNodeId("n1").setGpus(1)
                .setIntervalStart(Instant.ofEpochMilli(now - 60_000)).setIntervalEnd(Instant.ofEpochMilli(now))
                .setGpuSeconds(60).setChargeMode(ChargeMode.ALLOCATED).build());
        byte[] aSubmission = serializer.serialize(Topics.JOB_REQUESTS.name(), submitted("x"));
        // a record of another topic's schema; and a record schema id (the submission's) with corrupt Avro after it
        Map<String, byte[]> wrongSchema = new HashMap<>();
        for (String topic : inputs) {
            wrongSchema.put(topic, topic.equals(Topics.USAGE.name()) ? aSubmission : aUsage);
        }
        Random random = new Random(14);
        List<CompletableFuture<RecordMetadata>> bad = new ArrayList<>();
        List<String> jobs = new ArrayList<>();
        long began = System.nanoTime();
        for (int i = 0; i < FLOOD; i++) {
            for (String topic : inputs) {
                byte[] value = switch (i % 4) {
                    case 0 -> {
                        byte[] b = new byte[1 + random.nextInt(64)];
                        random.nextBytes(b);
                        b[0] = (byte) (1 + random.nextInt(100)); // not the magic byte
                        yield b;
                    }
                    case 1 -> wrongSchema.get(topic);
                    case 2 -> ByteBuffer.allocate(12).put((byte) 0).putInt(0x7fff0000 + random.nextInt(1000)).array();
                    default -> {
                        byte[] cut = Arrays.copyOf(topic.equals(Topics.USAGE.name()) ? aUsage : aSubmission, 7);
                        cut[5] = (byte) 0xff;
                        cut[6] = (byte) 0xff;
                        yield topic.equals(Topics.USAGE.name()) || topic.equals(Topics.JOB_REQUESTS.name())
                                ? cut : wrongSchema.get(topic);
                    }
                };
                bad.add(send(topic, "bad-" + id + "-" + i, value));
            }
            if (i % Math.max(1, FLOOD / 20) == 0) {
                String job = "flood-" + id + "-" + i;
                Api.as("carol").contentType(ContentType.JSON).header("X-Allot-Submitter", "carol")
                        .body("{\"id\":\"" + job + "\",\"budget\":\"" + team + "\",\"cluster\":\"" + cluster
                                + "\",\"replicas\":1,\"gpusPerReplica\":1,\"minRuntimeSeconds\":0,\"command\":[\"true\"]}")
                        .when().post("/jobs").then().statusCode(202);
                jobs.add(job);
            }
        }
        raw.flush();
        Set<String> badAt = new HashSet<>();
        for (CompletableFuture<RecordMetadata> f : bad) {
            badAt.add(at(f.get(1, TimeUnit.MINUTES)));
        }

        await().atMost(WAIT).until(() -> lettersAt(badAt).size() == badAt.size());
        long millis = (System.nanoTime() - began) / 1_000_000;
        System.out.printf("budget-service flood: %d bad records on each of %d input topics (%d), %d submissions: every"
                        + " bad one dead-lettered within %d ms of the first send (%.0f dead letters/s; load %s)%n",
                FLOOD, inputs.size(), badAt.size(), jobs.size(), millis, badAt.size() * 1000.0 / Math.max(1, millis),
                load());

        Map<String, List<DeadLetter>> letters = lettersAt(badAt);
        assertThat(letters.values()).allSatisfy(l -> {
            assertThat(l).hasSize(1);
            assertThat(l.get(0).getReason()).startsWith("cannot deserialise: ");
        });
        for (String topic : inputs) {
            assertThat(letters.values().stream().map(l -> l.get(0)).filter(d -> topic.equals(d.getSourceTopic()))
                    .map(DeadLetter::getReason)).as(topic)
                    .anyMatch(r -> r.contains("not in the wire format"))
                    .anyMatch(r -> r.contains("schema-invalid: written as"))
                    .anyMatch(r -> r.contains("unknown schema content id"));
        }
        assertThat(letters.values().stream().map(l -> l.get(0).getReason()))
                .anyMatch(r -> r.contains("cannot read the bytes"));
        assertThat(projector.alive()).isTrue();

        // A restart replays the log from the start: a projector launched again on it knows every accepted job and
        // sends no dead letter again.
        LogProjector again = new LogProjector();
        again.settings = settings;
        again.view = new LogView();
        again.publisher = publisher;
        again.metrics = new SimpleMeterRegistry();
        long restarted = System.nanoTime();
        again.start(null);
        try {
            await().atMost(WAIT).until(again::caughtUp);
            System.out.printf("budget-service replay after the flood: caught up in %d ms (load %s)%n",
                    (System.nanoTime() - restarted) / 1_000_000, load());
            assertThat(jobs).allSatisfy(j -> assertThat(again.view.jobs().exists(j)).as(j).isTrue());
            assertThat(again.view.usage().byCluster(team)).containsKey(cluster);
            assertThat(again.deadLettersSent()).isZero();
        } finally {
            again.stop(null);
        }
        assertThat(lettersAt(badAt).values()).allSatisfy(l -> assertThat(l).hasSize(1));
    }

    private JobRequest submitted(String job) {
        return JobRequest.newBuilder().setEventId(UUID.randomUUID().toString()).setOccurredAt(Instant.now())
                .setPayload(JobSubmitted.newBuilder().setJobId(job).setBudget(team).setCluster(cluster).setReplicas(1)
                        .setGpusPerReplica(1).setMinRuntimeSeconds(0).setResumable(false).setCommand(List.of("true"))
                        .setSubmitter("carol").setSubmittedAt(Instant.now()).build())
                .build();
    }

    private double registryWaits() {
        return metrics.get("allot.registry.waits").tag("consumer", settings.consumerName()).counter().count();
    }

    private Map<String, List<DeadLetter>> lettersAt(Set<String> at) {
        Map<String, List<DeadLetter>> found = new HashMap<>();
        for (DeadLetter d : deadLetters.values(r -> settings.consumerName().equals(r.value().getConsumer()))) {
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
