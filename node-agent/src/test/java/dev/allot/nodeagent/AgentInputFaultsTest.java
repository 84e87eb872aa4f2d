package dev.allot.nodeagent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.allot.schemas.ChargeMode;
import dev.allot.schemas.DeadLetter;
import dev.allot.schemas.JobEvent;
import dev.allot.schemas.JobExited;
import dev.allot.schemas.JobStarted;
import dev.allot.schemas.NodeCommand;
import dev.allot.schemas.NodeHeartbeat;
import dev.allot.schemas.NodeRegistered;
import dev.allot.schemas.NodeStatus;
import dev.allot.schemas.StartJob;
import dev.allot.schemas.catalogue.Topics;
import dev.allot.testsupport.RestartableInfrastructure;
import dev.allot.testsupport.Tail;
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
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bad input on the agent's one input topic, node-commands, with the agent as a real process (its own JVM, as the
 * app wires it) on a broker and registry of the test's own: a registry that is down makes it wait and resume
 * (nothing dead-lettered), and a flood of garbage and wrong-schema records while real commands flow is
 * dead-lettered record by record, once, with a reason, while every real command is carried out.
 */
class AgentInputFaultsTest {

    private static final Duration WAIT = Duration.ofMinutes(3);
    /** Bad records in the flood; {@code -Dallot.flood.records=10000} for the issue's full figure. */
    private static final int FLOOD = Integer.getInteger("allot.flood.records", 2_000);

    private final RestartableInfrastructure infra = RestartableInfrastructure.dedicated();
    private final String cluster = "faults-" + UUID.randomUUID().toString().substring(0, 8);
    private final String node = cluster + "-n1";
    private Process agent;
    private Tail<NodeStatus> status;
    private Tail<JobEvent> events;
    private Tail<DeadLetter> deadLetters;
    private KafkaProducer<byte[], byte[]> raw;

    @BeforeEach
    void follow() {
        infra.startRegistry();
        status = new Tail<>(infra.clients(), Topics.NODE_STATUS);
        events = new Tail<>(infra.clients(), Topics.JOB_EVENTS);
        deadLetters = new Tail<>(infra.clients(), Topics.DEAD_LETTERS);
        raw = new KafkaProducer<>(Map.of("bootstrap.servers", infra.bootstrapServers(),
                "key.serializer", ByteArraySerializer.class, "value.serializer", ByteArraySerializer.class,
                "linger.ms", 5));
    }

    @AfterEach
    void cleanUp() throws Exception {
        infra.startRegistry();
        if (agent != null) {
            agent.destroyForcibly();
        }
        raw.close();
        status.close();
        events.close();
        deadLetters.close();
    }

    @Test
    void givenTheRegistryIsDown_whenACommandWithASchemaTheAgentHasNotSeenArrives_thenItWaitsAndRunsItOnceBack(
            @TempDir Path dir) throws Exception {
        long epoch = startAgent(dir);
        String job = "after-outage-" + UUID.randomUUID();
        // encoded while the registry answers; the agent (a fresh JVM) has never resolved this schema id
        byte[] command = infra.clients().serde(Topics.NODE_COMMANDS).serializer()
                .serialize(Topics.NODE_COMMANDS.name(), start(job, epoch, 0, "exit 0"));

        infra.stopRegistry();
        RecordMetadata sent = send(command);
        // the agent stays alive and keeps heartbeating while it cannot read the command
        int beatsBefore = heartbeats();
        await().atMost(WAIT).until(() -> heartbeats() >= beatsBefore + 5);
        assertThat(agent.isAlive()).isTrue();
        Instant registryBack = Instant.now();
        infra.startRegistry();

        await().atMost(WAIT).until(() -> exits(job).size() == 1);
        assertThat(exits(job).get(0).getExitCode()).isZero();
        assertThat(events.values(r -> job.equals(r.key()) && r.value().getPayload() instanceof JobStarted)).hasSize(1)
                .allSatisfy(e -> assertThat(e.getOccurredAt()).isAfterOrEqualTo(registryBack.minusSeconds(1)));
        // nothing dead-lettered: waiting for the registry is not the record's fault
        assertThat(deadLettersAt(sent)).isZero();
    }

    @Test
    void givenAFloodOfGarbageAndWrongSchemaRecords_whileCommandsFlow_thenEachIsDeadLetteredOnceAndEveryCommandRuns(
            @TempDir Path dir) throws Exception {
        long epoch = startAgent(dir);
        var serializer = infra.clients().serde(Topics.NODE_COMMANDS).serializer();
        var wrongSchema = infra.clients().serde(Topics.NODE_STATUS).serializer();
        byte[] aStatus = wrongSchema.serialize(Topics.NODE_STATUS.name(), NodeStatus.newBuilder()
                .setEventId(UUID.randomUUID().toString()).setOccurredAt(Instant.now()).setNodeId(node)
                .setPayload(NodeHeartbeat.newBuilder().setCluster(cluster).setEpoch(epoch).setRunningJobs(List.of())
                        .setMeanGpuUtilisation(null).build()).build());
        Random random = new Random(14);
        List<CompletableFuture<RecordMetadata>> bad = new ArrayList<>();
        List<String> jobs = new ArrayList<>();
        int commandsEvery = Math.max(1, FLOOD / 20);
        long began = System.nanoTime();
        for (int i = 0; i < FLOOD; i++) {
            byte[] value = switch (i % 4) {
                case 0 -> { // random bytes
                    byte[] b = new byte[1 + random.nextInt(64)];
                    random.nextBytes(b);
                    b[0] = (byte) (1 + random.nextInt(100)); // not the magic byte
                    yield b;
                }
                case 1 -> aStatus; // a registered schema of another topic
                case 2 -> ByteBuffer.allocate(9).put((byte) 0).putInt(900_000 + random.nextInt(1000)).array(); // unknown id
                default -> { // the right schema id, corrupt Avro after it
                    byte[] good = serializer.serialize(Topics.NODE_COMMANDS.name(), start("x", epoch, 0, "true"));
                    byte[] cut = java.util.Arrays.copyOf(good, 7);
                    cut[5] = (byte) 0xff;
                    cut[6] = (byte) 0xff;
                    yield cut;
                }
            };
            bad.add(sendAsync(value));
            if (i % commandsEvery == 0) {
                String job = "flood-" + i + "-" + UUID.randomUUID().toString().substring(0, 6);
                jobs.add(job);
                sendAsync(serializer.serialize(Topics.NODE_COMMANDS.name(), start(job, epoch, jobs.size() % 4, "exit 0")));
            }
        }
        raw.flush();
        Set<String> badOffsets = new HashSet<>();
        for (CompletableFuture<RecordMetadata> f : bad) {
            RecordMetadata m = f.get(1, TimeUnit.MINUTES);
            badOffsets.add(m.partition() + "@" + m.offset());
        }

        await().atMost(WAIT).until(() -> deadLettered(badOffsets).size() == badOffsets.size());
        long handledMillis = (System.nanoTime() - began) / 1_000_000;
        await().atMost(WAIT).until(() -> jobs.stream().allMatch(j -> exits(j).size() == 1));
        System.out.printf("flood: %d bad records + %d commands on node-commands, every one dead-lettered and every"
                + " command run within %d ms of the first send (load %s)%n", FLOOD, jobs.size(), handledMillis, load());

        // once each, each with its reason
        Map<String, List<DeadLetter>> letters = deadLettered(badOffsets);
        assertThat(letters.values()).allSatisfy(l -> {
            assertThat(l).hasSize(1);
            assertThat(l.get(0).getReason()).startsWith("undecodable node command: ");
            assertThat(l.get(0).getConsumer()).isEqualTo("node-agent");
        });
        assertThat(letters.values().stream().map(l -> l.get(0).getReason()))
                .anyMatch(r -> r.contains("not in the wire format"))
                .anyMatch(r -> r.contains("written as dev.allot.schemas.NodeStatus"))
                .anyMatch(r -> r.contains("900"))
                .anyMatch(r -> r.contains("cannot read the bytes"));
        assertThat(jobs).allSatisfy(j -> assertThat(exits(j)).singleElement()
                .satisfies(e -> assertThat(e.getExitCode()).isZero()));
        assertThat(agent.isAlive()).isTrue();
    }

    // --- helpers -------------------------------------------------------------------------------------------

    private Map<String, List<DeadLetter>> deadLettered(Set<String> offsets) {
        Map<String, List<DeadLetter>> found = new HashMap<>();
        for (DeadLetter d : deadLetters.values(r -> Topics.NODE_COMMANDS.name().equals(r.value().getSourceTopic()))) {
            String at = d.getPartition() + "@" + d.getOffset();
            if (offsets.contains(at)) {
                found.computeIfAbsent(at, k -> new ArrayList<>()).add(d);
            }
        }
        return found;
    }

    private long deadLettersAt(RecordMetadata sent) {
        return deadLetters.values(r -> Topics.NODE_COMMANDS.name().equals(r.value().getSourceTopic())
                && r.value().getPartition() == sent.partition() && r.value().getOffset() == sent.offset()).size();
    }

    private int heartbeats() {
        return status.values(r -> node.equals(r.key()) && r.value().getPayload() instanceof NodeHeartbeat).size();
    }

    private List<JobExited> exits(String job) {
        return events.values(r -> job.equals(r.key()) && r.value().getPayload() instanceof JobExited).stream()
                .map(e -> (JobExited) e.getPayload()).toList();
    }

    private NodeCommand start(String job, long epoch, int gpu, String script) {
        return NodeCommand.newBuilder().setEventId(UUID.randomUUID().toString()).setOccurredAt(Instant.now())
                .setPayload(StartJob.newBuilder().setJobId(job).setNodeId(node).setNodeEpoch(epoch)
                        .setReplicaIndex(0).setReplicas(1).setGpuIndices(List.of(gpu))
                        .setCommand(List.of("sh", "-c", script)).setEnv(Map.of()).setRestartCount(0)
                        .setBudget("lab/team-a").setCluster(cluster).setChargeMode(ChargeMode.ALLOCATED).build())
                .build();
    }

    private RecordMetadata send(byte[] value) throws Exception {
        return sendAsync(value).get(1, TimeUnit.MINUTES);
    }

    private CompletableFuture<RecordMetadata> sendAsync(byte[] value) {
        CompletableFuture<RecordMetadata> sent = new CompletableFuture<>();
        raw.send(new ProducerRecord<>(Topics.NODE_COMMANDS.name(), node.getBytes(StandardCharsets.UTF_8), value),
                (metadata, error) -> {
                    if (error != null) {
                        sent.completeExceptionally(error);
                    } else {
                        sent.complete(metadata);
                    }
                });
        return sent;
    }

    /** Starts the agent in a JVM of its own; returns the epoch it registered. */
    private long startAgent(Path dir) throws Exception {
        KafkaAgentMain.Launched launched = KafkaAgentMain.launch(infra.bootstrapServers(), infra.registryUrl(),
                dir.resolve("state"), cluster, node, Duration.ofMillis(15_000), "faults-agent");
        agent = launched.process();
        long epoch = launched.ready().get(WAIT.toSeconds(), TimeUnit.SECONDS);
        await().atMost(WAIT).until(() -> !status.values(r -> node.equals(r.key())
                && r.value().getPayload() instanceof NodeRegistered).isEmpty());
        return epoch;
    }

    private static String load() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).strip();
        } catch (Exception e) {
            return "unknown";
        }
    }
}
