package dev.allot.scheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.allot.schemas.DeadLetter;
import dev.allot.schemas.JobAccepted;
import dev.allot.schemas.JobEvent;
import dev.allot.schemas.JobRequest;
import dev.allot.schemas.NodeCommand;
import dev.allot.schemas.NodeDrained;
import dev.allot.schemas.NodeStatus;
import dev.allot.schemas.catalogue.EventSerdes;
import dev.allot.schemas.catalogue.Topic;
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
import java.time.Instant;
import java.util.ArrayList;
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
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Bad input and a registry outage for the scheduler-service as it runs, on a broker and registry of this test's own
 * (test-support's {@link RestartableInfrastructure}, whose registry is stopped for real): a submission it cannot
 * read while the registry is down waits, is not dead-lettered, and is accepted and placed once the registry is
 * back; a flood of garbage and wrong-schema records on every input topic, while submissions flow, is dead-lettered
 * record by record, once each, with its reason, and no submission is lost.
 */
@QuarkusTest
@TestProfile(SchedulerInputFaultsTest.OwnCluster.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SchedulerInputFaultsTest {

    /** As {@link ItCluster}, on the restartable broker. */
    public static final class OwnCluster extends ItCluster {
        /** Only the restartable broker: the module's global AllotInfraTestResource would point the service elsewhere. */
        @Override
        public boolean disableGlobalTestResources() {
            return true;
        }

        @Override
        public java.util.List<TestResourceEntry> testResources() {
            return java.util.List.of(new TestResourceEntry(RestartableInfraTestResource.class));
        }
    }

    /** Bad records per input topic; {@code -Dallot.flood.records=10000} for the issue's full figure. */
    static final int FLOOD = Integer.getInteger("allot.flood.records", 1_000);
    static final Duration WAIT = Duration.ofMinutes(Math.max(3, FLOOD / 1_000));

    @Inject
    SchedulerService service;

    RestartableInfrastructure infra;
    KafkaProducer<String, SpecificRecord> producer;
    KafkaProducer<String, byte[]> raw;
    Events events;
    Tail<JobEvent> jobEvents;
    Tail<NodeCommand> commands;
    Tail<DeadLetter> deadLetters;
    String root;
    /** Where the submission read during the registry outage is: never a dead letter (checked again after the flood). */
    RecordMetadata readDuringOutage;

    @BeforeAll
    void given_a_broker_of_our_own_with_a_tree_and_two_nodes() {
        infra = RestartableInfrastructure.dedicated();
        producer = infra.clients().eventProducer("faults-" + UUID.randomUUID(), Map.of(ProducerConfig.LINGER_MS_CONFIG, 0));
        raw = new KafkaProducer<>(Map.of("bootstrap.servers", infra.bootstrapServers(), "linger.ms", 5),
                new org.apache.kafka.common.serialization.StringSerializer(), new ByteArraySerializer());
        events = new Events(producer, service.settings().cluster());
        jobEvents = new Tail<>(infra.clients(), Topics.JOB_EVENTS);
        commands = new Tail<>(infra.clients(), Topics.NODE_COMMANDS);
        deadLetters = new Tail<>(infra.clients(), Topics.DEAD_LETTERS);
        root = Events.id("org");
        events.budget(root, null, 1);
        events.budget(root + "/team-a", root, 1);
        String prefix = Events.id("node");
        events.node(prefix + "-1", 8);
        events.node(prefix + "-2", 8);
        await().atMost(WAIT).until(() -> service.loop().status().nodes() >= 2);
    }

    @AfterAll
    void close() throws Exception {
        infra.startRegistry();
        jobEvents.close();
        commands.close();
        deadLetters.close();
        producer.close();
        raw.close();
    }

    @Test
    @Order(1)
    void given_the_registry_is_down_when_a_submission_it_has_not_seen_the_schema_of_arrives_then_it_waits_and_places_it()
            throws Exception {
        // Encoded while the registry answers; this scheduler has read no job request yet, so it has never resolved
        // the schema id (its own JobAccepted has not been written either).
        String job = Events.id("job");
        byte[] submission = EventSerdes.<SpecificRecord>valueSerializer(infra.registryUrl()).serialize(
                Topics.JOB_REQUESTS.name(), new JobRequest(UUID.randomUUID().toString(), Instant.now(),
                        Events.job(job, root + "/team-a", events.cluster, 1, 1, 0)));
        infra.stopRegistry();
        RecordMetadata sent;
        try {
            sent = raw.send(new ProducerRecord<>(Topics.JOB_REQUESTS.name(), job, submission)).get(1, TimeUnit.MINUTES);
            // it cannot read the submission: it starts again from the log (and again), without a dead letter
            await().atMost(WAIT).pollInterval(Duration.ofMillis(50))
                    .until(() -> service.loop().status().phase() != SchedulerLoop.Phase.RUNNING);
            assertThat(commands.records().stream().filter(r -> Events.startFor(r, job))).isEmpty();
        } finally {
            infra.startRegistry();
        }
        await().atMost(WAIT).untilAsserted(() -> assertThat(commands.records().stream()
                .filter(r -> Events.startFor(r, job)).count()).isEqualTo(1));
        // (the test's own readers resolve the schema of job-events through the registry too: awaited)
        await().atMost(WAIT).untilAsserted(() -> assertThat(jobEvents.values(r -> job.equals(r.key())
                && r.value().getPayload() instanceof JobAccepted)).hasSize(1));
        assertThat(deadLetters.values(r -> Topics.JOB_REQUESTS.name().equals(r.value().getSourceTopic())
                && r.value().getPartition() == sent.partition() && r.value().getOffset() == sent.offset())).isEmpty();
        assertThat(service.loop().status().phase()).isEqualTo(SchedulerLoop.Phase.RUNNING);
        readDuringOutage = sent;
    }

    @Test
    @Order(2)
    void given_a_flood_of_bad_records_on_every_input_topic_while_submissions_flow_then_each_is_dead_lettered_once_and_no_job_is_lost()
            throws Exception {
        byte[] wrongSchema = EventSerdes.<SpecificRecord>valueSerializer(infra.registryUrl()).serialize(
                Topics.NODE_STATUS.name(), new NodeStatus(UUID.randomUUID().toString(), Instant.now(), "x",
                        new NodeDrained("x")));
        byte[] wrongSchemaForNodeStatus = EventSerdes.<SpecificRecord>valueSerializer(infra.registryUrl()).serialize(
                Topics.JOB_REQUESTS.name(), new JobRequest(UUID.randomUUID().toString(), Instant.now(),
                        Events.job("t", root + "/team-a", events.cluster, 1, 1, 0)));
        List<Topic<String, ? extends SpecificRecord>> inputs = InputReader.INPUT_TOPICS;
        Random random = new Random(14);
        Map<String, CompletableFuture<RecordMetadata>> bad = new HashMap<>();
        List<String> jobs = new ArrayList<>();
        long began = System.nanoTime();
        for (int i = 0; i < FLOOD; i++) {
            for (Topic<String, ? extends SpecificRecord> topic : inputs) {
                byte[] value = switch (i % 3) {
                    case 0 -> {
                        byte[] b = new byte[1 + random.nextInt(64)];
                        random.nextBytes(b);
                        b[0] = (byte) (1 + random.nextInt(100));
                        yield b;
                    }
                    case 1 -> topic.equals(Topics.NODE_STATUS) ? wrongSchemaForNodeStatus : wrongSchema;
                    default -> ByteBuffer.allocate(12).put((byte) 0).putInt(0x7fff0000 + random.nextInt(1000)).array();
                };
                String key = Events.id("bad-" + topic.name());
                bad.put(topic.name() + "/" + key, send(topic.name(), key, value));
            }
            if (i % Math.max(1, FLOOD / 20) == 0) {
                jobs.add(events.submit(root + "/team-a", 1, 1, 0));
            }
        }
        raw.flush();
        Set<String> badAt = new HashSet<>();
        for (CompletableFuture<RecordMetadata> f : bad.values()) {
            RecordMetadata m = f.get(1, TimeUnit.MINUTES);
            badAt.add(m.topic() + "/" + m.partition() + "@" + m.offset());
        }

        String consumer = service.settings().consumerName();
        await().atMost(WAIT).until(() -> lettersAt(badAt, consumer).size() == badAt.size());
        long millis = (System.nanoTime() - began) / 1_000_000;
        await().atMost(WAIT).until(() -> jobs.stream().allMatch(j -> !jobEvents.values(r -> j.equals(r.key())
                && r.value().getPayload() instanceof JobAccepted).isEmpty()));
        System.out.printf("scheduler flood: %d bad records on each of %d input topics (%d), %d submissions: every bad"
                        + " one dead-lettered, every submission accepted, within %d ms of the first send (load %s)%n",
                FLOOD, inputs.size(), badAt.size(), jobs.size(), millis, load());

        Map<String, List<DeadLetter>> letters = lettersAt(badAt, consumer);
        assertThat(letters.values()).allSatisfy(l -> {
            assertThat(l).hasSize(1);
            assertThat(l.get(0).getReason()).startsWith("cannot deserialise: ");
        });
        assertThat(letters.values().stream().map(l -> l.get(0).getReason()))
                .anyMatch(r -> r.contains("not in the wire format"))
                .anyMatch(r -> r.contains("schema-invalid"))
                .anyMatch(r -> r.contains("unknown schema content id"));
        // no accepted job lost: each is accepted once, and the cluster's 16 GPUs run 16 of them
        assertThat(jobs).allSatisfy(j -> assertThat(jobEvents.values(r -> j.equals(r.key())
                && r.value().getPayload() instanceof JobAccepted)).hasSize(1));
        if (readDuringOutage != null) { // the dead-letter reader is surely past it now
            assertThat(deadLetters.values(r -> Topics.JOB_REQUESTS.name().equals(r.value().getSourceTopic())
                    && r.value().getPartition() == readDuringOutage.partition()
                    && r.value().getOffset() == readDuringOutage.offset())).isEmpty();
        }
        await().atMost(WAIT).until(() -> jobs.stream().filter(j -> commands.records().stream()
                .anyMatch(r -> Events.startFor(r, j))).count() == Math.min(jobs.size(), 15));
    }

    private Map<String, List<DeadLetter>> lettersAt(Set<String> at, String consumer) {
        Map<String, List<DeadLetter>> found = new HashMap<>();
        for (DeadLetter d : deadLetters.values(r -> consumer.equals(r.value().getConsumer()))) {
            String where = d.getSourceTopic() + "/" + d.getPartition() + "@" + d.getOffset();
            if (at.contains(where)) {
                found.computeIfAbsent(where, k -> new ArrayList<>()).add(d);
            }
        }
        return found;
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
