package dev.allot.nodeagent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.allot.schemas.ChargeMode;
import dev.allot.schemas.JobEvent;
import dev.allot.schemas.JobExited;
import dev.allot.schemas.JobStarted;
import dev.allot.schemas.NodeCommand;
import dev.allot.schemas.NodeHeartbeat;
import dev.allot.schemas.NodeRegistered;
import dev.allot.schemas.NodeStatus;
import dev.allot.schemas.StartJob;
import dev.allot.schemas.UsageReported;
import dev.allot.schemas.catalogue.Topics;
import dev.allot.testsupport.AllotInfra;
import dev.allot.testsupport.AllotInfrastructure;
import dev.allot.testsupport.Tail;
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
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node agent killed with SIGKILL and started again on the same state dir, as real processes on the real broker:
 * back within {@code readopt-within} of its last heartbeat it keeps its epoch and its running job (which then ends
 * once, reported once, its usage tiled without gap or overlap across the restart), starts what it held for a busy
 * GPU when it died, carries out a command sent while it was down and does not dead-letter again what it dead-lettered before; back later it takes a new epoch and fences the job (killed, reported once as stopped).
 */
@AllotInfra
class AgentReadoptionTest {

    private static final Duration WAIT = Duration.ofSeconds(60);

    private final AllotInfrastructure infra;
    private final String cluster = "readopt-" + UUID.randomUUID().toString().substring(0, 8);
    private final String node = cluster + "-n1";
    private final List<Process> agents = new ArrayList<>();
    private final List<Long> jobPids = new ArrayList<>();
    private Tail<NodeStatus> status;
    private Tail<JobEvent> events;
    private Tail<UsageReported> usage;
    private Tail<dev.allot.schemas.DeadLetter> deadLetters;
    private KafkaProducer<String, NodeCommand> commands;

    AgentReadoptionTest(AllotInfrastructure infra) {
        this.infra = infra;
    }

    @BeforeEach
    void follow() {
        status = new Tail<>(infra, Topics.NODE_STATUS);
        events = new Tail<>(infra, Topics.JOB_EVENTS);
        usage = new Tail<>(infra, Topics.USAGE);
        deadLetters = new Tail<>(infra, Topics.DEAD_LETTERS);
        commands = infra.producer();
    }

    @AfterEach
    void cleanUp() throws Exception {
        agents.forEach(Process::destroyForcibly);
        jobPids.forEach(pid -> ProcessHandle.of(pid).ifPresent(p -> {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
        }));
        commands.close();
        status.close();
        events.close();
        usage.close();
        deadLetters.close();
    }

    @Test
    void givenAgentKilled_whenBackWithinReadoptWindow_thenItsJobRunsOnAndItsExitAndUsageAreReportedOnce(
            @TempDir Path dir) throws Exception {
        Path state = dir.resolve("state");
        Path go = dir.resolve("go");
        Process first = startAgent(state, Duration.ofSeconds(20));
        long epoch = firstRegistration();
        String job = "long-" + UUID.randomUUID();
        send(job, epoch, List.of(0, 1), untilExists(go));
        long pid = startedPid(job);
        jobPids.add(pid);
        await().atMost(WAIT).until(() -> !tiles(job).isEmpty()); // the ledger knows how far usage was reported
        var garbageOffset = sendGarbage();
        await().atMost(WAIT).until(() -> deadLettersOf(garbageOffset) == 1);

        // given: the agent dies without a word, and the scheduler places another job on the node meanwhile
        kill(first);
        String during = "during-" + UUID.randomUUID();
        send(during, epoch, List.of(2), "exit 0");

        // when: it is back within its readopt window
        startAgent(state, Duration.ofSeconds(20));

        // then: same epoch, the job still runs (same process), and the command sent while it was down is carried out
        await().atMost(WAIT).until(() -> registeredEpochs().size() == 2);
        assertThat(registeredEpochs()).containsExactly(epoch, epoch);
        assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)).isTrue();
        await().atMost(WAIT).until(() -> exits(during).size() == 1);
        assertThat(exits(during).get(0).getExitCode()).isZero();
        // the restarted agent's heartbeats name the job it took over
        await().atMost(WAIT).until(() -> {
            List<NodeStatus> ours = status.values(r -> node.equals(r.key()));
            int second = 0;
            for (int i = 0, seen = 0; i < ours.size(); i++) {
                if (ours.get(i).getPayload() instanceof NodeRegistered && ++seen == 2) {
                    second = i;
                }
            }
            return ours.subList(second, ours.size()).stream().anyMatch(s -> s.getPayload() instanceof NodeHeartbeat h
                    && h.getRunningJobs().contains(job) && h.getEpoch() == epoch);
        });
        assertThat(exits(job)).isEmpty();
        assertThat(deadLettersOf(garbageOffset)).as("dead-lettered once across the restart").isEqualTo(1);

        Files.createFile(go);
        await().atMost(WAIT).until(() -> exits(job).size() == 1);
        // and nothing more comes for it: one start (reported again by the agent that took it over, under the same
        // event id, as the first may have died in the killed agent's buffer), one exit, its own (0, not stopped)
        await().during(Duration.ofSeconds(2)).atMost(WAIT).until(() -> exits(job).size() == 1);
        List<JobEvent> starts = events.values(r -> job.equals(r.key()) && r.value().getPayload() instanceof JobStarted);
        assertThat(starts).hasSize(2);
        assertThat(starts).extracting(JobEvent::getEventId).containsOnly(starts.get(0).getEventId());
        assertThat(starts).extracting(e -> ((JobStarted) e.getPayload()).getPid()).containsOnly(pid);
        assertThat(starts).extracting(JobEvent::getOccurredAt).containsOnly(starts.get(0).getOccurredAt());
        JobExited exit = exits(job).get(0);
        assertThat(exit.getExitCode()).isZero();
        assertThat(exit.getStopped()).isFalse();
        assertTiledFromStartToExit(job, 2);
    }

    @Test
    void givenAgentKilled_whenBackAfterItsReadoptWindow_thenItTakesANewEpochAndFencesTheJobOnce(@TempDir Path dir)
            throws Exception {
        Path state = dir.resolve("state");
        Duration window = Duration.ofMillis(1500);
        Process first = startAgent(state, window);
        long epoch = firstRegistration();
        String job = "fenced-" + UUID.randomUUID();
        send(job, epoch, List.of(3), "sleep 600");
        long pid = startedPid(job);
        jobPids.add(pid);

        kill(first);
        // past the window since the node was last heard from (what the scheduler's lost-after stands for)
        Path heard = new StateDir(state).nodeDir(node).resolve("heard");
        long lastHeard = Long.parseLong(Files.readString(heard).strip());
        await().atMost(WAIT).until(() -> System.currentTimeMillis() - lastHeard > window.toMillis() + 100);

        startAgent(state, window);

        await().atMost(WAIT).until(() -> registeredEpochs().size() == 2);
        assertThat(registeredEpochs().get(1)).isGreaterThan(epoch);
        await().atMost(WAIT).until(() -> exits(job).size() == 1);
        await().atMost(WAIT).until(() -> ProcessHandle.of(pid).map(p -> !p.isAlive()).orElse(true));
        await().during(Duration.ofSeconds(2)).atMost(WAIT).until(() -> exits(job).size() == 1);
        JobExited exit = exits(job).get(0);
        assertThat(exit.getExitCode()).isEqualTo(143);
        assertThat(exit.getStopped()).isTrue(); // ended by Allot (fencing), never a verdict on the job
        assertTiledFromStartToExit(job, 1);
    }

    @Test
    void givenAStartHeldForABusyGpu_whenTheAgentIsKilledAndBackWithinItsWindow_thenTheHeldJobStartsOnceTheGpuIsFree(
            @TempDir Path dir) throws Exception {
        Path state = dir.resolve("state");
        Path go = dir.resolve("go");
        Process first = startAgent(state, Duration.ofSeconds(20));
        long epoch = firstRegistration();
        String busy = "busy-" + UUID.randomUUID();
        send(busy, epoch, List.of(0), untilExists(go));
        jobPids.add(startedPid(busy));
        // given: a start for the same GPU, held (handled: the node's command position passes it), then a SIGKILL
        String waiting = "held-" + UUID.randomUUID();
        var held = send(waiting, epoch, List.of(0), "exit 0");
        await().atMost(WAIT).until(() -> new StateDir(state).commandPositions(node)
                .getOrDefault(held.partition(), 0L) > held.offset());
        kill(first);

        // when: the agent is back within its window (same epoch) and the GPU's holder then ends
        startAgent(state, Duration.ofSeconds(20));
        await().atMost(WAIT).until(() -> registeredEpochs().size() == 2);
        assertThat(registeredEpochs()).containsExactly(epoch, epoch);
        assertThat(events.values(r -> waiting.equals(r.key()) && r.value().getPayload() instanceof JobStarted))
                .as("still held: its GPU is busy").isEmpty();
        Files.createFile(go);

        // then: the held job starts once, after the holder's exit, on its GPU, and ends
        await().atMost(WAIT).until(() -> exits(busy).size() == 1 && exits(waiting).size() == 1);
        assertThat(exits(waiting).get(0).getExitCode()).isZero();
        await().during(Duration.ofSeconds(2)).atMost(WAIT).until(() -> exits(waiting).size() == 1);
        assertThat(events.values(r -> waiting.equals(r.key()) && r.value().getPayload() instanceof JobStarted))
                .hasSize(1);
        Instant started = events.records().stream()
                .filter(r -> waiting.equals(r.key()) && r.value().getPayload() instanceof JobStarted)
                .findFirst().orElseThrow().value().getOccurredAt();
        assertThat(started).isAfterOrEqualTo(exitAt(busy).truncatedTo(java.time.temporal.ChronoUnit.MILLIS));
        assertThat(Files.exists(new StateDir(state).nodeDir(node).resolve("held"))
                && Files.list(new StateDir(state).nodeDir(node).resolve("held")).findAny().isPresent())
                .as("nothing left held on disk").isFalse();
    }

    // --- helpers -------------------------------------------------------------------------------------------

    /** The epoch of the node's first registration, once it came. */
    private long firstRegistration() {
        await().atMost(WAIT).until(() -> registeredEpochs().size() == 1);
        return registeredEpochs().get(0);
    }

    /** A job's script: runs until {@code go} exists, then exits 0. */
    private static String untilExists(Path go) {
        return "while [ ! -e '" + go + "' ]; do sleep 0.05; done; exit 0";
    }

    /** The job's usage tiles cover [JobStarted, JobExited) exactly: contiguous, no overlap, gpus x held time. */
    private void assertTiledFromStartToExit(String job, int gpus) {
        await().atMost(WAIT).until(() -> !tiles(job).isEmpty() && tiles(job).get(tiles(job).size() - 1)
                .getIntervalEnd().toEpochMilli() >= exitAt(job).toEpochMilli());
        List<UsageReported> tiles = tiles(job);
        Instant startedAt = events.records().stream()
                .filter(r -> job.equals(r.key()) && r.value().getPayload() instanceof JobStarted)
                .findFirst().orElseThrow().value().getOccurredAt();
        assertThat(tiles.get(0).getIntervalStart()).isEqualTo(startedAt.truncatedTo(java.time.temporal.ChronoUnit.MILLIS));
        for (int i = 1; i < tiles.size(); i++) {
            assertThat(tiles.get(i).getIntervalStart()).as("tile %d starts where %d ended", i, i - 1)
                    .isEqualTo(tiles.get(i - 1).getIntervalEnd());
        }
        Instant end = tiles.get(tiles.size() - 1).getIntervalEnd();
        assertThat(end).isEqualTo(exitAt(job).truncatedTo(java.time.temporal.ChronoUnit.MILLIS));
        double sum = tiles.stream().mapToDouble(UsageReported::getGpuSeconds).sum();
        assertThat(sum).isCloseTo(gpus * (end.toEpochMilli() - tiles.get(0).getIntervalStart().toEpochMilli()) / 1000.0,
                org.assertj.core.data.Offset.offset(1e-6));
    }

    private Instant exitAt(String job) {
        return events.records().stream()
                .filter(r -> job.equals(r.key()) && r.value().getPayload() instanceof JobExited)
                .findFirst().orElseThrow().value().getOccurredAt();
    }

    /** Bytes that are no record, keyed for the node; returns their offset. */
    private org.apache.kafka.clients.producer.RecordMetadata sendGarbage() throws Exception {
        try (KafkaProducer<byte[], byte[]> raw = new KafkaProducer<>(Map.of(
                "bootstrap.servers", infra.bootstrapServers(),
                "key.serializer", org.apache.kafka.common.serialization.ByteArraySerializer.class,
                "value.serializer", org.apache.kafka.common.serialization.ByteArraySerializer.class))) {
            return raw.send(new ProducerRecord<>(Topics.NODE_COMMANDS.name(), node.getBytes(StandardCharsets.UTF_8),
                    "not a command".getBytes(StandardCharsets.UTF_8))).get(30, TimeUnit.SECONDS);
        }
    }

    private long deadLettersOf(org.apache.kafka.clients.producer.RecordMetadata garbage) {
        return deadLetters.values(r -> r.value().getSourceTopic().equals(Topics.NODE_COMMANDS.name())
                && r.value().getPartition() == garbage.partition() && r.value().getOffset() == garbage.offset()).size();
    }

    private List<UsageReported> tiles(String job) {
        return usage.values(r -> job.equals(r.key())).stream()
                .sorted(Comparator.comparing(UsageReported::getIntervalStart)).toList();
    }

    private List<JobExited> exits(String job) {
        return events.values(r -> job.equals(r.key()) && r.value().getPayload() instanceof JobExited).stream()
                .map(e -> (JobExited) e.getPayload()).toList();
    }

    private List<Long> registeredEpochs() {
        return status.values(r -> node.equals(r.key()) && r.value().getPayload() instanceof NodeRegistered).stream()
                .map(s -> ((NodeRegistered) s.getPayload()).getEpoch()).toList();
    }

    private long startedPid(String job) {
        await().atMost(WAIT).until(() -> !events.values(r -> job.equals(r.key())
                && r.value().getPayload() instanceof JobStarted).isEmpty());
        return ((JobStarted) events.values(r -> job.equals(r.key()) && r.value().getPayload() instanceof JobStarted)
                .get(0).getPayload()).getPid();
    }

    private org.apache.kafka.clients.producer.RecordMetadata send(String job, long epoch, List<Integer> gpus,
                                                                 String script) throws Exception {
        return commands.send(new ProducerRecord<>(Topics.NODE_COMMANDS.name(), node, NodeCommand.newBuilder()
                .setEventId(UUID.randomUUID().toString()).setOccurredAt(Instant.now())
                .setPayload(StartJob.newBuilder().setJobId(job).setNodeId(node).setNodeEpoch(epoch)
                        .setReplicaIndex(0).setReplicas(1).setGpuIndices(gpus)
                        .setCommand(List.of("sh", "-c", script)).setEnv(Map.of()).setRestartCount(0)
                        .setBudget("lab/team-a").setCluster(cluster).setChargeMode(ChargeMode.ALLOCATED).build())
                .build())).get(30, TimeUnit.SECONDS);
    }

    /** Starts the agent in a JVM of its own and waits until it has registered its node. */
    private Process startAgent(Path state, Duration readoptWithin) throws Exception {
        KafkaAgentMain.Launched launched = KafkaAgentMain.launch(infra.bootstrapServers(), infra.registryUrl(), state,
                cluster, node, readoptWithin, "readopt-agent");
        agents.add(launched.process());
        launched.ready().get(WAIT.toSeconds(), TimeUnit.SECONDS);
        return launched.process();
    }

    private static void kill(Process agent) throws InterruptedException {
        agent.destroyForcibly(); // SIGKILL: no shutdown hook, no stop of its jobs
        assertThat(agent.waitFor(30, TimeUnit.SECONDS)).isTrue();
    }
}
