package dev.allot.scheduler;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;

import dev.allot.schemas.AccountDemand;
import dev.allot.schemas.DeadLetter;
import dev.allot.schemas.JobAccepted;
import dev.allot.schemas.JobCompleted;
import dev.allot.schemas.JobEvent;
import dev.allot.schemas.JobPlaced;
import dev.allot.schemas.JobRejected;
import dev.allot.schemas.JobRequest;
import dev.allot.schemas.JobState;
import dev.allot.schemas.NodeCommand;
import dev.allot.schemas.NodeStatus;
import dev.allot.schemas.QueueSnapshot;
import dev.allot.schemas.StartJob;
import dev.allot.schemas.catalogue.EventSerdes;
import dev.allot.schemas.catalogue.Topics;
import dev.allot.testsupport.AllotInfraTestResource;
import dev.allot.testsupport.Tail;
import dev.allot.testsupport.AllotInfrastructure;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The service as it runs: its loop (started by Quarkus) on the real broker and registry, driven
 * only by events, observed only through the topics it writes (read_committed).
 */
@QuarkusTest
@TestProfile(ItCluster.class)
@QuarkusTestResource(value = AllotInfraTestResource.class, restrictToAnnotatedClass = false)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SchedulerServiceTest {

    static final Duration WAIT = Duration.ofSeconds(30);

    @Inject
    SchedulerService service;

    AllotInfrastructure infra;
    KafkaProducer<String, SpecificRecord> producer;
    Events events;
    Tail<JobEvent> jobEvents;
    Tail<NodeCommand> commands;
    Tail<DeadLetter> deadLetters;
    String root;

    @BeforeAll
    void given_the_shared_broker_and_a_budget_tree_of_our_own() {
        infra = AllotInfrastructure.shared();
        producer = infra.producer();
        events = new Events(producer, service.settings().cluster());
        jobEvents = new Tail<>(infra, Topics.JOB_EVENTS);
        commands = new Tail<>(infra, Topics.NODE_COMMANDS);
        deadLetters = new Tail<>(infra, Topics.DEAD_LETTERS);
        root = Events.id("org");
        events.budget(root, null, 1);
        events.budget(root + "/team-a", root, 1);
        events.budget(root + "/team-b", root, 1);
    }

    @AfterAll
    void close() throws Exception {
        jobEvents.close();
        commands.close();
        deadLetters.close();
        producer.close();
    }

    List<Object> eventsOf(String jobId) {
        return jobEvents.values(r -> r.key().equals(jobId)).stream().map(e -> e.getPayload()).toList();
    }

    List<JobEvent> jobEventsOf(String jobId) {
        return jobEvents.values(r -> r.key().equals(jobId));
    }

    List<StartJob> startsOf(String jobId) {
        return commands.records().stream().filter(r -> Events.startFor(r, jobId))
                .map(r -> (StartJob) r.value().getPayload()).toList();
    }

    String twoNodes(int gpus) {
        String prefix = Events.id("node");
        events.node(prefix + "-1", gpus);
        events.node(prefix + "-2", gpus);
        return prefix;
    }

    @Test
    void given_registered_nodes_when_a_gang_is_submitted_then_it_is_accepted_and_started_on_distinct_nodes_and_gpus() {
        String prefix = twoNodes(8);
        await().atMost(WAIT).until(() -> service.loop().status().nodes() >= 2);
        String job = events.submit(root + "/team-a", 2, 4, 60);

        await().atMost(WAIT).untilAsserted(() -> assertThat(startsOf(job)).hasSize(2));
        List<StartJob> starts = startsOf(job);
        assertThat(starts).extracting(StartJob::getReplicaIndex).containsExactlyInAnyOrder(0, 1);
        assertThat(new HashSet<>(starts.stream().map(StartJob::getNodeId).toList())).hasSize(2);
        Set<String> gpus = new HashSet<>();
        for (StartJob s : starts) {
            assertThat(s.getGpuIndices()).hasSize(4);
            s.getGpuIndices().forEach(g -> assertThat(gpus.add(s.getNodeId() + ":" + g)).isTrue());
            assertThat(s.getCommand()).containsExactly("sleep", "600");
            assertThat(s.getBudget()).isEqualTo(root + "/team-a");
        }
        await().atMost(WAIT).untilAsserted(() -> {
            List<JobEvent> history = jobEventsOf(job);
            assertThat(history).extracting(e -> e.getPayload().getClass().getSimpleName())
                    .containsExactly("JobAccepted", "JobPlaced");
            assertThat(history).extracting(JobEvent::getStateAfter).containsExactly(JobState.WAITING, JobState.RUNNING);
            JobPlaced placed = (JobPlaced) history.get(1).getPayload();
            assertThat(placed.getAssignments()).hasSize(2);
            assertThat(placed.getExplanation()).isNotBlank();
        });
    }

    @Test
    void given_invalid_submissions_when_sent_then_each_is_rejected_with_its_reason_and_field() {
        twoNodes(8);
        await().atMost(WAIT).until(() -> service.loop().status().nodes() >= 2);
        String cluster = events.cluster;
        Map<String, String> expectedField = new java.util.LinkedHashMap<>();
        String dup = Events.id("dup");
        Object[][] cases = {
                {Events.job(Events.id("unknown-account"), "nobody/team", cluster, 1, 1, 0), "budget"},
                {Events.job(Events.id("inner-account"), root, cluster, 1, 1, 0), "budget"},
                {Events.job(Events.id("too-long"), root + "/team-a", cluster, 1, 1, 9 * 3600), "minRuntimeSeconds"},
                {Events.job(Events.id("negative"), root + "/team-a", cluster, 1, 1, -5), "minRuntimeSeconds"},
                {Events.job(Events.id("too-wide"), root + "/team-a", cluster, 1, 1000, 0), "gpusPerReplica"},
                {Events.job(Events.id("too-many"), root + "/team-a", cluster, 100_000, 1, 0), "replicas"},
                {Events.job(Events.id("zero-replicas"), root + "/team-a", cluster, 0, 1, 0), "replicas"},
                {Events.job(Events.id("zero-gpus"), root + "/team-a", cluster, 1, 0, 0), "gpusPerReplica"},
        };
        for (Object[] c : cases) {
            dev.allot.schemas.JobSubmitted s = (dev.allot.schemas.JobSubmitted) c[0];
            expectedField.put(s.getJobId(), (String) c[1]);
            events.submit(s);
        }
        String empty = Events.id("empty-command");
        dev.allot.schemas.JobSubmitted noCommand = Events.job(empty, root + "/team-a", cluster, 1, 1, 0);
        noCommand.put("command", List.of());
        events.submit(noCommand);
        expectedField.put(empty, "command");
        events.submit(Events.job(dup, root + "/team-a", cluster, 1, 1, 0));
        events.submit(Events.job(dup, root + "/team-a", cluster, 1, 1, 0));

        await().atMost(WAIT).untilAsserted(() -> {
            for (Map.Entry<String, String> e : expectedField.entrySet()) {
                List<JobEvent> history = jobEventsOf(e.getKey());
                assertThat(history).as(e.getKey()).singleElement().satisfies(ev -> {
                    assertThat(ev.getStateAfter()).isEqualTo(JobState.REJECTED);
                    JobRejected r = (JobRejected) ev.getPayload();
                    assertThat(r.getField()).as(e.getKey() + ": " + r.getReason()).isEqualTo(e.getValue());
                    assertThat(r.getReason()).isNotBlank();
                });
            }
            List<Object> dupHistory = eventsOf(dup);
            assertThat(dupHistory).anySatisfy(p -> assertThat(p).isInstanceOf(JobAccepted.class));
            assertThat(dupHistory).anySatisfy(p -> {
                assertThat(p).isInstanceOf(JobRejected.class);
                assertThat(((JobRejected) p).getReason()).contains("duplicate");
            });
        });
        String unknown = expectedField.keySet().iterator().next();
        assertThat(((JobRejected) eventsOf(unknown).get(0)).getReason()).contains("nobody/team");
    }

    @Test
    void given_garbage_schema_invalid_and_unknown_schema_records_when_sent_then_they_land_in_dead_letters_and_the_next_job_is_placed()
            throws Exception {
        twoNodes(8);
        await().atMost(WAIT).until(() -> service.loop().status().nodes() >= 2);
        String garbageKey = Events.id("garbage");
        String wrongSchemaKey = Events.id("wrong-schema");
        String truncatedKey = Events.id("truncated");
        String unknownIdKey = Events.id("unknown-id");
        byte[] wrongSchema = EventSerdes.<SpecificRecord>valueSerializer(infra.registryUrl()).serialize(
                Topics.NODE_STATUS.name(), new NodeStatus(UUID.randomUUID().toString(), Instant.now(), "x",
                        new dev.allot.schemas.NodeDrained("x")));
        byte[] valid = EventSerdes.<SpecificRecord>valueSerializer(infra.registryUrl()).serialize(
                Topics.JOB_REQUESTS.name(), new JobRequest(UUID.randomUUID().toString(), Instant.now(),
                        Events.job("t", root + "/team-a", events.cluster, 1, 1, 0)));
        byte[] truncated = Arrays.copyOf(valid, 9);
        // written against a registry that is gone (e.g. an in-memory one restarted): no such content id
        byte[] unknownId = valid.clone();
        java.nio.ByteBuffer.wrap(unknownId).putInt(1, 0x7ffffff0);
        try (KafkaProducer<String, byte[]> raw = new KafkaProducer<>(Map.of("bootstrap.servers",
                infra.bootstrapServers()), new StringSerializer(), new ByteArraySerializer())) {
            raw.send(new ProducerRecord<>(Topics.JOB_REQUESTS.name(), garbageKey,
                    "definitely not avro".getBytes(StandardCharsets.UTF_8))).get();
            raw.send(new ProducerRecord<>(Topics.JOB_REQUESTS.name(), wrongSchemaKey, wrongSchema)).get();
            raw.send(new ProducerRecord<>(Topics.JOB_REQUESTS.name(), truncatedKey, truncated)).get();
            raw.send(new ProducerRecord<>(Topics.JOB_REQUESTS.name(), unknownIdKey, unknownId)).get();
        }
        String job = events.submit(root + "/team-b", 1, 2, 0);

        String consumer = service.settings().consumerName();
        await().atMost(WAIT).untilAsserted(() -> {
            for (String key : List.of(garbageKey, wrongSchemaKey, truncatedKey, unknownIdKey)) {
                assertThat(deadLetters.values(r -> r.value().getConsumer().equals(consumer)
                        && r.value().getKey() != null
                        && StandardCharsets.UTF_8.decode(r.value().getKey().duplicate()).toString().equals(key)))
                        .as(key).singleElement().satisfies(d -> {
                            assertThat(d.getSourceTopic()).isEqualTo(Topics.JOB_REQUESTS.name());
                            assertThat(d.getReason()).isNotBlank();
                        });
            }
            assertThat(startsOf(job)).hasSize(1);
        });
        assertThat(deadLetters.values(r -> r.value().getConsumer().equals(consumer)
                && StandardCharsets.UTF_8.decode(r.value().getKey().duplicate()).toString().equals(wrongSchemaKey))
                .get(0).getReason()).contains("schema-invalid").contains("NodeStatus");
        assertThat(deadLetters.values(r -> r.value().getConsumer().equals(consumer)
                && StandardCharsets.UTF_8.decode(r.value().getKey().duplicate()).toString().equals(unknownIdKey))
                .get(0).getReason()).contains("unknown schema content id " + 0x7ffffff0);
    }

    @Test
    void given_a_running_gang_when_every_replica_exits_0_then_the_job_is_completed() {
        twoNodes(4);
        await().atMost(WAIT).until(() -> service.loop().status().nodes() >= 2);
        String job = events.submit(root + "/team-a", 2, 1, 30);
        await().atMost(WAIT).untilAsserted(() -> assertThat(startsOf(job)).hasSize(2));
        for (StartJob s : startsOf(job)) {
            events.exited(job, s.getNodeId(), s.getReplicaIndex(), 0);
        }
        await().atMost(WAIT).untilAsserted(() -> assertThat(jobEventsOf(job)).last().satisfies(e -> {
            assertThat(e.getPayload()).isInstanceOf(JobCompleted.class);
            assertThat(e.getStateAfter()).isEqualTo(JobState.COMPLETED);
        }));
    }

    @Test
    void given_the_service_when_asked_then_it_is_ready_and_exposes_its_metrics_queue_and_demand() throws Exception {
        given().when().get("/q/health/ready").then().statusCode(200).body(containsString("scheduler-loop"));
        given().when().get("/scheduler/status").then().statusCode(200)
                .body("cluster", equalTo(service.settings().cluster())).body("phase", equalTo("RUNNING"));
        given().when().get("/q/metrics").then().statusCode(200)
                .body(containsString("allot_scheduler_pass_seconds"))
                .body(containsString("allot_scheduler_commit_seconds_count"))
                .body(containsString("allot_scheduler_waiting_jobs"))
                .body(containsString("allot_dead_letters_total{cluster=")).body(containsString("allot_consumer_lag_records"))
                .body(containsString("allot_cluster_gpus")).body(containsString("allot_scheduler_last_pass_timestamp_seconds"));
        String cluster = service.settings().cluster();
        try (Tail<QueueSnapshot> queue = new Tail<>(infra, Topics.QUEUE_STATUS);
                Tail<AccountDemand> demand = new Tail<>(infra, Topics.ACCOUNT_DEMAND)) {
            twoNodes(2);
            String job = events.submit(root + "/team-b", 1, 2, 0);
            await().atMost(WAIT).untilAsserted(() -> {
                assertThat(queue.values(r -> r.key().equals(cluster))).anySatisfy(s ->
                        assertThat(s.getEntries()).anySatisfy(e -> {
                            assertThat(e.getJobId()).isEqualTo(job);
                            assertThat(e.getReason()).isNotBlank();
                        }));
                assertThat(demand.values(r -> r.value().getCluster().equals(cluster)
                        && r.value().getAccount().startsWith(root))).isNotEmpty();
            });
        }
    }

    @Test
    void given_two_gangs_that_each_need_a_whole_new_pair_of_nodes_then_the_one_that_waits_has_an_expected_start_and_the_refresh_is_timed()
            throws Exception {
        // given two 64-GPU nodes (larger than any other test's, whose waiting jobs may take some of their GPUs)
        String cluster = service.settings().cluster();
        Set<String> gangs = new HashSet<>();
        try (Tail<QueueSnapshot> queue = new Tail<>(infra, Topics.QUEUE_STATUS)) {
            int before = service.loop().status().nodes();
            twoNodes(64);
            await().atMost(WAIT).until(() -> service.loop().status().nodes() >= before + 2);
            // when two gangs that each need both nodes whole are submitted, so that at least one waits
            for (int i = 0; i < 2; i++) {
                dev.allot.schemas.JobSubmitted gang = dev.allot.schemas.JobSubmitted.newBuilder(
                        Events.job(Events.id("job"), root + "/team-a", cluster, 2, 64, 60))
                        .setExpectedDurationSeconds(3600L).build();
                events.submit(gang);
                gangs.add(gang.getJobId());
            }

            // then a snapshot lists one of them waiting with an expected start (a basis; a time unless beyond
            // the horizon, never before the estimate was made)
            await().atMost(WAIT).untilAsserted(() -> assertThat(queue.values(r -> r.key().equals(cluster)))
                    .anySatisfy(s -> {
                        assertThat(s.getEstimatedAt()).isNotNull();
                        assertThat(s.getEstimateHorizonSeconds()).isEqualTo(Duration.ofDays(3).toSeconds());
                        assertThat(s.getEntries()).anySatisfy(e -> {
                            assertThat(gangs).contains(e.getJobId());
                            assertThat(e.getState()).isEqualTo(JobState.WAITING);
                            assertThat(e.getExpectedStartBasis()).isNotNull();
                            if (e.getExpectedStartBasis() == dev.allot.schemas.StartEstimateBasis.BEYOND_HORIZON) {
                                assertThat(e.getExpectedStart()).isNull();
                            } else {
                                assertThat(e.getExpectedStart()).isAfterOrEqualTo(s.getEstimatedAt());
                            }
                        });
                    }));
        }
        given().when().get("/q/metrics").then().statusCode(200)
                .body(containsString("allot_scheduler_estimate_refresh_seconds_count{cluster=\"" + cluster + "\""));
        // the cluster is shared with the other tests: nothing of ours is left running or waiting
        for (String gang : gangs) {
            events.send(Topics.JOB_REQUESTS.name(), gang, new JobRequest(UUID.randomUUID().toString(), Instant.now(),
                    new dev.allot.schemas.JobCancelRequested(gang, "test", "done", Instant.now())));
        }
        await().atMost(WAIT).untilAsserted(() -> assertThat(gangs).allSatisfy(gang -> assertThat(jobEventsOf(gang))
                .last().satisfies(e -> assertThat(e.getStateAfter()).isEqualTo(JobState.CANCELLED))));
    }
}
