package dev.allot.nodeagent;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.allot.schemas.ChargeMode;
import dev.allot.schemas.DeadLetter;
import dev.allot.schemas.JobCheckpointed;
import dev.allot.schemas.JobEvent;
import dev.allot.schemas.JobExited;
import dev.allot.schemas.JobStarted;
import dev.allot.schemas.NodeCommand;
import dev.allot.schemas.NodeHeartbeat;
import dev.allot.schemas.NodeRegistered;
import dev.allot.schemas.NodeStatus;
import dev.allot.schemas.StartJob;
import dev.allot.schemas.StopJob;
import dev.allot.schemas.StopReason;
import dev.allot.schemas.UsageReported;
import dev.allot.schemas.NodeUndrained;
import dev.allot.schemas.catalogue.EventSerdes;
import dev.allot.schemas.catalogue.Topics;
import dev.allot.testsupport.AllotInfraTestResource;
import dev.allot.testsupport.AllotInfrastructure;
import dev.allot.testsupport.Tail;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The agent as it runs: a Quarkus app hosting two fake nodes (test-node-1, test-node-2, 4 GPUs each) on the
 * real broker and registry; commands produced on node-commands, reports read back from the topics, and
 * real OS processes.
 */
@QuarkusTest
@QuarkusTestResource(value = AllotInfraTestResource.class, restrictToAnnotatedClass = false)
class NodeAgentTest {

    private static final String NODE = "test-node-1";
    private static final String OTHER_NODE = "test-node-2";
    // Generous: on a shared, loaded build machine a command can take many seconds to arrive. Awaitility
    // returns as soon as the condition holds, so this costs nothing when things are fast.
    private static final Duration WAIT = Duration.ofSeconds(60);
    /** Jobs a test started (node, epoch, job id): what is still running afterwards is stopped. */
    private static final List<StartJob> startedByTheTest = new java.util.concurrent.CopyOnWriteArrayList<>();

    private static AllotInfrastructure infra;
    private static KafkaProducer<String, NodeCommand> commands;
    private static Tail<NodeStatus> nodeStatus;
    private static Tail<JobEvent> jobEvents;
    private static Tail<UsageReported> usage;
    private static Tail<DeadLetter> deadLetters;

    @Inject
    AgentRuntime runtime;

    @BeforeAll
    static void connect() {
        infra = AllotInfrastructure.shared();
        commands = infra.producer();
        nodeStatus = new Tail<>(infra, Topics.NODE_STATUS);
        jobEvents = new Tail<>(infra, Topics.JOB_EVENTS);
        usage = new Tail<>(infra, Topics.USAGE);
        deadLetters = new Tail<>(infra, Topics.DEAD_LETTERS);
    }

    @AfterAll
    static void disconnect() throws InterruptedException {
        commands.close();
        nodeStatus.close();
        jobEvents.close();
        usage.close();
        deadLetters.close();
    }

    /**
     * A test that failed half-way must not leave a process on a GPU: the agent would (rightly) hold every
     * later start on that GPU until it exits.
     */
    @org.junit.jupiter.api.AfterEach
    void stopWhatTheTestLeftRunning() {
        List<StartJob> left = startedByTheTest.stream()
                .filter(s -> s.getNodeEpoch() == epoch(s.getNodeId())) // (a stale-epoch start never ran)
                .filter(s -> payloads(s.getJobId(), JobExited.class).isEmpty()).toList(); // running, or held
        left.forEach(s -> send(s.getNodeId(), stop(s.getJobId(), s.getNodeId(), s.getNodeEpoch(), 0)));
        startedByTheTest.clear();
        await().atMost(WAIT).until(() -> left.stream()
                .noneMatch(s -> runtime.agent().runningJobs(s.getNodeId()).contains(s.getJobId())));
    }

    @Test
    void givenAgentStarted_whenReadingNodeStatus_thenEachNodeRegisteredAndHeartbeats() {
        await().atMost(WAIT).untilAsserted(() -> {
            NodeRegistered registered = registration(NODE);
            assertThat(registered.getCluster()).isEqualTo("test");
            assertThat(registered.getGpuCount()).isEqualTo(4);
            assertThat(registered.getGpuModel()).isEqualTo("fake");
            assertThat(registration(OTHER_NODE).getEpoch()).isPositive();
            List<NodeHeartbeat> heartbeats = nodeStatus.values(r -> r.key().equals(NODE)).stream()
                    .map(NodeStatus::getPayload).filter(NodeHeartbeat.class::isInstance).map(NodeHeartbeat.class::cast)
                    .filter(h -> h.getEpoch() == registered.getEpoch()).toList();
            assertThat(heartbeats).hasSizeGreaterThanOrEqualTo(3);
            assertThat(heartbeats.get(0).getCluster()).isEqualTo("test");
        });
        given().get("/q/health/ready").then().statusCode(200);
    }

    @Test
    void givenStartJob_whenProcessRuns_thenRightEnvStartedExitedAndUsageTilesTheRuntime(@org.junit.jupiter.api.io.TempDir Path tmp)
            throws Exception {
        String jobId = "env-" + UUID.randomUUID();
        Path out = AgentCredentials.writableByJobs(tmp).resolve("env.txt");
        long epoch = epoch(NODE);
        long sentAt = System.currentTimeMillis();
        send(NODE, start(jobId, NODE, epoch, List.of(1, 3), List.of("sh", "-c",
                "echo \"$CUDA_VISIBLE_DEVICES|$ALLOT_JOB_ID|$ALLOT_RESTART_COUNT|$ALLOT_CHECKPOINT_DIR|$FOO\" > \"$OUT\"; "
                        + "date +%s%3N >> \"$OUT\"; sleep 1"),
                Map.of("OUT", out.toString(), "FOO", "bar", "CUDA_VISIBLE_DEVICES", "0,1,2,3"), 2));

        await().atMost(WAIT).untilAsserted(() -> assertThat(payloads(jobId, JobExited.class)).hasSize(1));
        JobStarted started = payloads(jobId, JobStarted.class).get(0);
        JobExited exited = payloads(jobId, JobExited.class).get(0);
        assertThat(started.getNodeId()).isEqualTo(NODE);
        assertThat(started.getNodeEpoch()).isEqualTo(epoch);
        assertThat(started.getPid()).isPositive();
        assertThat(exited.getExitCode()).isZero();
        assertThat(exited.getStopped()).isFalse();
        List<String> lines = Files.readAllLines(out, StandardCharsets.UTF_8);
        String[] env = lines.get(0).split("\\|", -1);
        assertThat(env[0]).isEqualTo("1,3"); // the agent's GPUs win over the event's env
        assertThat(env[1]).isEqualTo(jobId);
        assertThat(env[2]).isEqualTo("2");
        assertThat(Path.of(env[3])).isDirectory();
        assertThat(env[4]).isEqualTo("bar");
        List<Instant> eventTimes = jobEvents.records().stream().filter(r -> r.key().equals(jobId))
                .map(r -> r.value().getOccurredAt()).toList();
        assertThat(eventTimes).isSorted();
        long processRanAt = Long.parseLong(lines.get(1).trim());
        System.out.printf("MEASURED StartJob sent -> JobStarted %d ms, -> process running (first line of script) %d ms%n",
                started.getPid() == null ? -1 : eventTime(jobId, JobStarted.class).toEpochMilli() - sentAt,
                processRanAt - sentAt);

        await().atMost(WAIT).untilAsserted(() -> {
            List<UsageReported> tiles = usageOf(jobId);
            assertThat(tiles).isNotEmpty();
            assertThat(tiles.get(tiles.size() - 1).getIntervalEnd()).isAfterOrEqualTo(eventTime(jobId, JobExited.class)
                    .minusMillis(5));
        });
        List<UsageReported> tiles = usageOf(jobId);
        for (int i = 1; i < tiles.size(); i++) {
            assertThat(tiles.get(i).getIntervalStart()).isEqualTo(tiles.get(i - 1).getIntervalEnd());
        }
        double held = (tiles.get(tiles.size() - 1).getIntervalEnd().toEpochMilli()
                - tiles.get(0).getIntervalStart().toEpochMilli()) / 1000.0;
        double sum = tiles.stream().mapToDouble(UsageReported::getGpuSeconds).sum();
        assertThat(sum).isCloseTo(2 * held, org.assertj.core.data.Offset.offset(1e-6));
        assertThat(held).isBetween(1.0, 4.0);
        assertThat(tiles).allSatisfy(t -> {
            assertThat(t.getGpus()).isEqualTo(2);
            assertThat(t.getAccount()).isEqualTo("lab/team-a");
            assertThat(t.getChargeMode()).isEqualTo(ChargeMode.ALLOCATED);
            assertThat(t.getNodeId()).isEqualTo(NODE);
        });
        System.out.printf("MEASURED usage: %d tile(s), %.3f GPU-s for %.3f s held on 2 GPUs%n", tiles.size(), sum, held);
    }

    @Test
    void givenRunningSleep_whenStopJob_thenTerminatedBySigtermWithinGraceAndReportedStopped() {
        String jobId = "stop-" + UUID.randomUUID();
        long epoch = epoch(NODE);
        // A shell waiting on its child: SIGTERM to the shell alone would leave the sleep holding the GPU.
        send(NODE, start(jobId, NODE, epoch, List.of(0), List.of("sh", "-c", "sleep 600; true"), Map.of(), 0));
        await().atMost(WAIT).until(() -> !payloads(jobId, JobStarted.class).isEmpty());
        long pid = payloads(jobId, JobStarted.class).get(0).getPid();
        // the sleep runs (exec'd: a child forked but not yet exec'd could lose the SIGTERM)
        await().atMost(WAIT).until(() -> ProcessHandle.of(pid).map(p -> p.descendants()
                .anyMatch(d -> d.info().command().map(c -> c.endsWith("/sleep")).orElse(false))).orElse(false));
        List<ProcessHandle> tree = ProcessHandle.of(pid).orElseThrow().descendants().toList();

        long stopSent = System.nanoTime();
        send(NODE, stop(jobId, NODE, epoch, 10));

        await().atMost(Duration.ofSeconds(10)).until(() -> !payloads(jobId, JobExited.class).isEmpty());
        Duration took = Duration.ofNanos(System.nanoTime() - stopSent);
        JobExited exited = payloads(jobId, JobExited.class).get(0);
        assertThat(exited.getExitCode()).isEqualTo(128 + 15);
        assertThat(exited.getStopped()).isTrue();
        assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)).isFalse();
        await().atMost(Duration.ofSeconds(5)).until(() -> tree.stream().noneMatch(ProcessHandle::isAlive));
        System.out.printf("MEASURED StopJob -> JobExited(SIGTERM) %d ms%n", took.toMillis());
    }

    @Test
    void givenJobTrappingSigterm_whenStopJob_thenSigkillAfterGracePeriod() {
        String jobId = "trap-" + UUID.randomUUID();
        long epoch = epoch(OTHER_NODE);
        java.nio.file.Path trapped = java.nio.file.Path.of(System.getProperty("java.io.tmpdir"), jobId + ".trapped");
        send(OTHER_NODE, start(jobId, OTHER_NODE, epoch, List.of(0, 1),
                List.of("sh", "-c", "trap '' TERM; touch '" + trapped + "'; while true; do sleep 0.1; done"),
                Map.of(), 0));
        await().atMost(WAIT).until(() -> !payloads(jobId, JobStarted.class).isEmpty());
        // Stop only once the shell ignores TERM, or TERM alone would end it (143, not the 137 checked below).
        await().atMost(WAIT).until(() -> java.nio.file.Files.exists(trapped));

        long stopSent = System.nanoTime();
        send(OTHER_NODE, stop(jobId, OTHER_NODE, epoch, 1));

        await().atMost(Duration.ofSeconds(10)).until(() -> !payloads(jobId, JobExited.class).isEmpty());
        Duration took = Duration.ofNanos(System.nanoTime() - stopSent);
        JobExited exited = payloads(jobId, JobExited.class).get(0);
        assertThat(exited.getExitCode()).isEqualTo(128 + 9);
        assertThat(exited.getStopped()).isTrue();
        assertThat(took).isGreaterThanOrEqualTo(Duration.ofSeconds(1)).isLessThan(Duration.ofSeconds(6));
        System.out.printf("MEASURED StopJob(grace 1 s, TERM trapped) -> JobExited(SIGKILL) %d ms%n", took.toMillis());
    }

    @Test
    void givenJobThatCheckpointsOnNotice_whenPreempted_thenCheckpointedReportedBeforeItsExitAndNoKill(
            @org.junit.jupiter.api.io.TempDir Path tmp) throws Exception {
        String jobId = "notice-" + UUID.randomUUID();
        long epoch = epoch(OTHER_NODE);
        Path seen = AgentCredentials.writableByJobs(tmp).resolve("notice-seen");
        Path ready = tmp.resolve("ready");
        // A job as the README tells one to be: on SIGTERM, read the notice, checkpoint, report it, exit 0.
        send(OTHER_NODE, start(jobId, OTHER_NODE, epoch, List.of(3), List.of("sh", "-c",
                "trap 'cp \"$ALLOT_PREEMPT_NOTICE_FILE\" \"$SEEN\"; echo /ckpt/on-notice > \"$ALLOT_CHECKPOINT_DIR/checkpoint\";"
                        + " exit 0' TERM; touch \"$READY\"; while true; do sleep 0.05; done"),
                Map.of("SEEN", seen.toString(), "READY", ready.toString()), 0));
        await().atMost(WAIT).until(() -> Files.exists(ready));

        long stopSent = System.nanoTime();
        send(OTHER_NODE, stop(jobId, OTHER_NODE, epoch, 20));

        await().atMost(WAIT).until(() -> !payloads(jobId, JobExited.class).isEmpty());
        Duration took = Duration.ofNanos(System.nanoTime() - stopSent);
        List<Object> reports = jobEvents.values(r -> r.key().equals(jobId)).stream().map(JobEvent::getPayload).toList();
        assertThat(reports).extracting(p -> p.getClass().getSimpleName())
                .containsExactly("JobStarted", "JobCheckpointed", "JobExited");
        assertThat(((JobCheckpointed) reports.get(1)).getLocation()).isEqualTo("/ckpt/on-notice");
        JobExited exited = (JobExited) reports.get(2);
        assertThat(exited.getExitCode()).isZero(); // it left by itself, well within its grace: no SIGKILL
        assertThat(exited.getStopped()).isTrue(); // ended because Allot stopped it: not a verdict
        assertThat(took).isLessThan(Duration.ofSeconds(20));
        String notice = Files.readString(seen);
        assertThat(notice).contains("reason=PREEMPTED\n", "graceSeconds=20\n").containsPattern("deadline=\\d{4}-");
        long deadline = Long.parseLong(notice.lines().filter(l -> l.startsWith("deadlineEpochMillis="))
                .findFirst().orElseThrow().substring("deadlineEpochMillis=".length()));
        assertThat(deadline - eventTime(jobId, JobStarted.class).toEpochMilli()).isGreaterThanOrEqualTo(20_000);
        System.out.printf("MEASURED StopJob(PREEMPTED, grace 20 s) -> checkpoint on notice -> JobExited(0) %d ms%n",
                took.toMillis());
    }

    @Test
    void givenStaleEpoch_whenStartJob_thenIgnoredAndCountedWhileCurrentOnesRun() {
        String staleJob = "stale-" + UUID.randomUUID();
        String currentJob = "current-" + UUID.randomUUID();
        long epoch = epoch(NODE);
        double staleBefore = runtime.metrics().staleCommandCount();

        send(NODE, start(staleJob, NODE, epoch - 1, List.of(2), List.of("true"), Map.of(), 0));
        // Same key, same partition: once the later command ran, the earlier one has been handled.
        send(NODE, start(currentJob, NODE, epoch, List.of(2), List.of("true"), Map.of(), 0));

        await().atMost(WAIT).until(() -> !payloads(currentJob, JobExited.class).isEmpty());
        assertThat(jobEvents.values(r -> r.key().equals(staleJob))).isEmpty();
        assertThat(runtime.metrics().staleCommandCount()).isEqualTo(staleBefore + 1);
        given().get("/q/metrics").then().statusCode(200)
                .body(org.hamcrest.Matchers.containsString("allot_agent_commands_ignored_stale_total"));
    }

    @Test
    void givenDuplicateStartJob_whenReplicaRuns_thenOnlyOneProcess() {
        String jobId = "dup-" + UUID.randomUUID();
        long epoch = epoch(NODE);
        NodeCommand command = start(jobId, NODE, epoch, List.of(3), List.of("sleep", "600"), Map.of(), 0);
        send(NODE, command);
        send(NODE, start(jobId, NODE, epoch, List.of(3), List.of("sleep", "600"), Map.of(), 0)); // same replica, new event id
        send(NODE, stop(jobId, NODE, epoch, 5));

        await().atMost(WAIT).until(() -> !payloads(jobId, JobExited.class).isEmpty());
        assertThat(payloads(jobId, JobStarted.class)).hasSize(1);
        assertThat(payloads(jobId, JobExited.class)).hasSize(1);
    }

    @Test
    void givenCheckpointMarker_whenJobTouchesItEmpty_thenOneCheckpointAtTheDirectory() {
        String jobId = "touch-" + UUID.randomUUID();
        long epoch = epoch(OTHER_NODE);
        send(OTHER_NODE, start(jobId, OTHER_NODE, epoch, List.of(1), List.of("sh", "-c",
                "sleep 0.3; touch \"$ALLOT_CHECKPOINT_DIR/checkpoint\"; sleep 600"), Map.of(), 0));

        // an empty marker is reported once it has stayed empty for a poll, with the directory as location
        await().atMost(WAIT).untilAsserted(() -> assertThat(payloads(jobId, JobCheckpointed.class))
                .extracting(JobCheckpointed::getLocation).singleElement().asString()
                .endsWith("checkpoints/" + jobId + "/replica-0"));
        send(OTHER_NODE, stop(jobId, OTHER_NODE, epoch, 5));
        await().atMost(WAIT).until(() -> !payloads(jobId, JobExited.class).isEmpty());
        assertThat(payloads(jobId, JobCheckpointed.class)).hasSize(1);
    }

    @Test
    void givenCheckpointMarker_whenJobTouchesIt_thenJobCheckpointedWithTheLocation() throws Exception {
        String jobId = "ckpt-" + UUID.randomUUID();
        long epoch = epoch(OTHER_NODE);
        send(OTHER_NODE, start(jobId, OTHER_NODE, epoch, List.of(2), List.of("sh", "-c",
                "printf %s \"$ALLOT_JOB_TOKEN\" > \"$ALLOT_CHECKPOINT_DIR/token\"; sleep 0.3;"
                        + " echo /ckpt/step-10 > \"$ALLOT_CHECKPOINT_DIR/checkpoint\"; sleep 600"), Map.of(), 0));

        await().atMost(WAIT).untilAsserted(() -> assertThat(payloads(jobId, JobCheckpointed.class))
                .extracting(JobCheckpointed::getLocation).containsExactly("/ckpt/step-10"));
        await().atMost(WAIT).untilAsserted(() -> assertThat(nodeStatus.values(r -> r.key().equals(OTHER_NODE)).stream()
                .map(NodeStatus::getPayload).filter(NodeHeartbeat.class::isInstance).map(NodeHeartbeat.class::cast)
                .map(NodeHeartbeat::getRunningJobs)).anySatisfy(running -> assertThat(running).contains(jobId)));

        // the job's own token (it wrote it where only it and the agent can read)
        String token = Files.readString(Path.of("target/agent-state/checkpoints/" + jobId + "/replica-0/token"));
        given().auth().oauth2(token).queryParam("location", "s3://bucket/step-20").post("/jobs/{id}/checkpoint", jobId)
                .then().statusCode(202);
        await().atMost(WAIT).untilAsserted(() -> assertThat(payloads(jobId, JobCheckpointed.class))
                .extracting(JobCheckpointed::getLocation).containsExactly("/ckpt/step-10", "s3://bucket/step-20"));
        given().auth().oauth2(token).post("/jobs/{id}/checkpoint", "no-such-job").then().statusCode(404);

        send(OTHER_NODE, stop(jobId, OTHER_NODE, epoch, 5));
        await().atMost(WAIT).until(() -> !payloads(jobId, JobExited.class).isEmpty());
    }

    @Test
    void givenGarbageBytes_whenOnNodeCommands_thenDeadLetteredAndAgentKeepsWorking() {
        byte[] garbage = ("not avro " + UUID.randomUUID()).getBytes(StandardCharsets.UTF_8);
        byte[] unknownSchema = {0, 0x7f, 0x7f, 0x7f, 0x7f, 1, 2, 3};
        // Well-formed Avro under a registered schema, but not the topic's: a NodeStatus.
        byte[] wrongSchema = EventSerdes.<NodeStatus>valueSerializer(infra.registryUrl()).serialize(
                Topics.NODE_STATUS.name(), NodeStatus.newBuilder().setEventId(UUID.randomUUID().toString())
                        .setOccurredAt(Instant.now()).setNodeId(NODE)
                        .setPayload(NodeUndrained.newBuilder().setCluster("test").setRequestedBy("test").build())
                        .build());
        double deadBefore = runtime.metrics().deadLetterCount();
        try (KafkaProducer<byte[], byte[]> raw = new KafkaProducer<>(infra.clients().producerConfig("test-raw"),
                new ByteArraySerializer(), new ByteArraySerializer())) {
            raw.send(new ProducerRecord<>(Topics.NODE_COMMANDS.name(), NODE.getBytes(StandardCharsets.UTF_8), garbage));
            raw.send(new ProducerRecord<>(Topics.NODE_COMMANDS.name(), NODE.getBytes(StandardCharsets.UTF_8), unknownSchema));
            raw.send(new ProducerRecord<>(Topics.NODE_COMMANDS.name(), NODE.getBytes(StandardCharsets.UTF_8), wrongSchema));
            raw.flush();
        }
        String jobId = "after-garbage-" + UUID.randomUUID();
        send(NODE, start(jobId, NODE, epoch(NODE), List.of(0), List.of("true"), Map.of(), 0));

        await().atMost(WAIT).until(() -> !payloads(jobId, JobExited.class).isEmpty());
        await().atMost(WAIT).untilAsserted(() -> {
            List<DeadLetter> letters = deadLetters.values(r -> r.value().getSourceTopic().equals(Topics.NODE_COMMANDS.name()));
            assertThat(letters).anySatisfy(letter -> {
                assertThat(bytes(letter.getValue())).isEqualTo(garbage);
                assertThat(letter.getConsumer()).isEqualTo("node-agent");
                assertThat(letter.getReason()).startsWith("undecodable node command");
                assertThat(bytes(letter.getKey())).isEqualTo(NODE.getBytes(StandardCharsets.UTF_8));
            });
            assertThat(letters).anySatisfy(letter -> {
                assertThat(bytes(letter.getValue())).isEqualTo(unknownSchema);
                assertThat(letter.getReason()).contains("unknown schema content id " + 0x7f7f7f7f);
            });
            assertThat(letters).anySatisfy(letter -> {
                assertThat(bytes(letter.getValue())).isEqualTo(wrongSchema);
                assertThat(letter.getReason()).contains("schema-invalid: written as dev.allot.schemas.NodeStatus")
                        .contains("expected dev.allot.schemas.NodeCommand");
            });
        });
        assertThat(runtime.metrics().deadLetterCount()).isEqualTo(deadBefore + 3);
    }

    @Test
    void givenFortyStartJobsInARow_whenRun_thenEachRunsOnceAndNoTwoShareAGpuAndLatencyIsMeasured() throws Exception {
        long epoch = epoch(NODE);
        long otherEpoch = epoch(OTHER_NODE);
        Map<String, Long> sentAt = new java.util.LinkedHashMap<>();
        Map<String, List<String>> jobsByGpu = new java.util.HashMap<>(); // "node/gpu" -> job ids in send order
        for (int i = 0; i < 40; i++) {
            String jobId = "burst-" + i + "-" + UUID.randomUUID();
            String node = i % 2 == 0 ? NODE : OTHER_NODE;
            var metadata = commands.send(new ProducerRecord<>(Topics.NODE_COMMANDS.name(), node,
                    start(jobId, node, i % 2 == 0 ? epoch : otherEpoch, List.of(i % 4), List.of("true"), Map.of(), 0)))
                    .get();
            sentAt.put(jobId, metadata.timestamp());
            jobsByGpu.computeIfAbsent(node + "/" + (i % 4), k -> new ArrayList<>()).add(jobId);
        }

        await().atMost(WAIT).until(() -> sentAt.keySet().stream().allMatch(id -> !payloads(id, JobExited.class).isEmpty()));
        long[] latencies = sentAt.entrySet().stream()
                .mapToLong(e -> eventTime(e.getKey(), JobStarted.class).toEpochMilli() - e.getValue())
                .sorted().toArray();
        assertThat(sentAt.keySet()).allSatisfy(id -> assertThat(payloads(id, JobExited.class).get(0).getExitCode()).isZero());
        long firstSend = sentAt.values().stream().mapToLong(Long::longValue).min().orElseThrow();
        long lastSend = sentAt.values().stream().mapToLong(Long::longValue).max().orElseThrow();
        long lastStart = sentAt.keySet().stream().mapToLong(id -> eventTime(id, JobStarted.class).toEpochMilli()).max().orElseThrow();
        System.out.printf("MEASURED burst: 40 sends over %d ms, last JobStarted %d ms after the first send%n",
                lastSend - firstSend, lastStart - firstSend);
        System.out.printf("MEASURED StartJob produced -> JobStarted over %d commands: p50 %d ms, p99 %d ms, max %d ms%n",
                latencies.length, latencies[latencies.length / 2], latencies[(int) Math.ceil(latencies.length * 0.99) - 1],
                latencies[latencies.length - 1]);
        // Five jobs per GPU, sent back to back: each started only once the one before it on that GPU had exited,
        // as the reports show (a start is reported after the previous holder's exit, never before).
        jobsByGpu.values().forEach(jobs -> {
            for (int k = 1; k < jobs.size(); k++) {
                assertThat(eventTime(jobs.get(k), JobStarted.class))
                        .isAfterOrEqualTo(eventTime(jobs.get(k - 1), JobExited.class));
            }
        });
    }

    @Test
    void givenOperator_whenDrainAndUndrainPosted_thenRequestsPublishedOnNodeStatus() {
        AgentCredentials.asOperator("alice").queryParam("requestedBy", "alice").queryParam("reason", "MAINT-42")
                .post("/nodes/{id}/drain", OTHER_NODE).then().statusCode(202);
        AgentCredentials.asOperator("alice").post("/nodes/{id}/undrain", OTHER_NODE).then().statusCode(202);
        AgentCredentials.asOperator("alice").post("/nodes/{id}/drain", "no-such-node").then().statusCode(404);
        AgentCredentials.asService().get("/nodes").then().statusCode(200)
                .body("nodeId", org.hamcrest.Matchers.hasItems(NODE, OTHER_NODE));

        await().atMost(WAIT).untilAsserted(() -> {
            List<Object> payloads = nodeStatus.values(r -> r.key().equals(OTHER_NODE)).stream()
                    .map(NodeStatus::getPayload)
                    .filter(p -> p instanceof dev.allot.schemas.NodeDrainRequested || p instanceof dev.allot.schemas.NodeUndrained)
                    .toList();
            assertThat(payloads).hasSize(2);
            dev.allot.schemas.NodeDrainRequested drain = (dev.allot.schemas.NodeDrainRequested) payloads.get(0);
            assertThat(drain.getCluster()).isEqualTo("test");
            assertThat(drain.getRequestedBy()).isEqualTo("alice");
            assertThat(drain.getReason()).isEqualTo("MAINT-42");
            assertThat(payloads.get(1)).isInstanceOf(dev.allot.schemas.NodeUndrained.class);
        });
    }

    // --- helpers -------------------------------------------------------------------------------------------

    private static byte[] bytes(java.nio.ByteBuffer buffer) {
        java.nio.ByteBuffer copy = buffer.duplicate();
        byte[] out = new byte[copy.remaining()];
        copy.get(out);
        return out;
    }

    private static NodeRegistered registration(String nodeId) {
        return nodeStatus.values(r -> r.key().equals(nodeId)).stream()
                .map(NodeStatus::getPayload).filter(NodeRegistered.class::isInstance).map(NodeRegistered.class::cast)
                .max(Comparator.comparingLong(NodeRegistered::getEpoch))
                .orElseThrow(() -> new AssertionError("no NodeRegistered for " + nodeId));
    }

    private static long epoch(String nodeId) {
        await().atMost(WAIT).ignoreExceptions().until(() -> registration(nodeId) != null);
        return registration(nodeId).getEpoch();
    }

    private static <T> List<T> payloads(String jobId, Class<T> type) {
        return jobEvents.values(r -> r.key().equals(jobId)).stream()
                .map(JobEvent::getPayload).filter(type::isInstance).map(type::cast).toList();
    }

    private static Instant eventTime(String jobId, Class<?> type) {
        return jobEvents.values(r -> r.key().equals(jobId)).stream()
                .filter(e -> type.isInstance(e.getPayload())).map(JobEvent::getOccurredAt).findFirst().orElseThrow();
    }

    private static List<UsageReported> usageOf(String jobId) {
        List<UsageReported> tiles = new ArrayList<>(usage.values(r -> r.key().equals(jobId)));
        tiles.sort(Comparator.comparing(UsageReported::getIntervalStart));
        return tiles;
    }

    private static void send(String nodeId, NodeCommand command) {
        if (command.getPayload() instanceof StartJob start) {
            startedByTheTest.add(start);
        }
        try {
            commands.send(new ProducerRecord<>(Topics.NODE_COMMANDS.name(), nodeId, command)).get();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    static NodeCommand start(String jobId, String nodeId, long epoch, List<Integer> gpus, List<String> argv,
                             Map<String, String> env, int restartCount) {
        return NodeCommand.newBuilder()
                .setEventId(UUID.randomUUID().toString())
                .setOccurredAt(Instant.now())
                .setPayload(StartJob.newBuilder()
                        .setJobId(jobId).setNodeId(nodeId).setNodeEpoch(epoch)
                        .setReplicaIndex(0).setReplicas(1)
                        .setGpuIndices(gpus).setCommand(argv).setEnv(env).setRestartCount(restartCount)
                        .setBudget("lab/team-a").setCluster("test").setChargeMode(ChargeMode.ALLOCATED)
                        .build())
                .build();
    }

    static NodeCommand stop(String jobId, String nodeId, long epoch, int graceSeconds) {
        return NodeCommand.newBuilder()
                .setEventId(UUID.randomUUID().toString())
                .setOccurredAt(Instant.now())
                .setPayload(StopJob.newBuilder()
                        .setJobId(jobId).setNodeId(nodeId).setNodeEpoch(epoch)
                        .setReason(StopReason.PREEMPTED).setGracePeriodSeconds(graceSeconds)
                        .build())
                .build();
    }
}
