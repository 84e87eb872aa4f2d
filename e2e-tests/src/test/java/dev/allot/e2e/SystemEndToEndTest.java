package dev.allot.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.allot.schemas.BudgetUsage;
import dev.allot.schemas.DeadLetter;
import dev.allot.schemas.NodeDrainRequested;
import dev.allot.schemas.NodeDrained;
import dev.allot.schemas.NodeStatus;
import dev.allot.schemas.catalogue.Topics;
import dev.allot.testsupport.AllotInfra;
import dev.allot.testsupport.AllotInfrastructure;
import dev.allot.testsupport.ConfluentCompatClient;
import dev.allot.testsupport.Tail;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Allot working as a scheduler: jobs submitted through the budget-service run as real processes on
 * a node agent's fake GPUs, usage flows back through the accounting-service, and the scheduler
 * preempts, requeues and drains by the rules. One cluster of 3 nodes x 4 GPUs; the scenarios run in
 * order on it and each leaves it idle.
 */
@AllotInfra
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SystemEndToEndTest {

    static final Duration PATIENCE = Duration.ofSeconds(90);

    AllotInfrastructure infra;
    AllotSystem system;
    Path out;
    String lab;

    @BeforeAll
    void startTheSystem(AllotInfrastructure infra) throws Exception {
        this.infra = infra;
        String cluster = "e2e-" + UUID.randomUUID().toString().substring(0, 6);
        system = AllotSystem.start(infra, cluster, 3, 4);
        out = Files.createTempDirectory("allot-e2e-out");
        // the jobs write here, as the unprivileged user a root agent runs them as
        Files.setPosixFilePermissions(out, java.nio.file.attribute.PosixFilePermissions.fromString("rwxrwxrwx"));
        lab = "lab" + cluster.substring(4);
        assertThat(system.api.putBudget(lab, 1).status()).isBetween(200, 204);
        for (String team : List.of("team-a", "team-b", "team-c")) {
            assertThat(system.api.putBudget(lab + "/" + team, 1).status()).isBetween(200, 204);
        }
    }

    @AfterAll
    void stopTheSystem() throws Exception {
        if (system != null) {
            system.close();
        }
    }

    @Test
    @Order(1)
    void givenThreeTeams_whenTheySubmit_thenTheJobsRunAsProcessesOnDistinctGpusAndUsageFlowsBack() throws Exception {
        List<String> ids = new ArrayList<>();
        for (String team : List.of("team-a", "team-b", "team-c")) {
            ids.add(system.api.submit(job(team, 1, 2, 30, true, recordGpusThenSleep(3))));
        }

        for (String id : ids) {
            await().atMost(PATIENCE).until(() -> system.api.state(id), s -> s.equals("RUNNING") || s.equals("COMPLETED"));
        }
        // Each process wrote what it was given: its own GPUs, two of them, never shared on a node.
        await().atMost(PATIENCE).until(() -> ids.stream().allMatch(id -> Files.exists(out.resolve(id))));
        Map<String, String> gpusByJob = new HashMap<>();
        for (String id : ids) {
            gpusByJob.put(id, Files.readString(out.resolve(id)).trim());
            assertThat(gpusByJob.get(id).split(",")).hasSize(2);
        }
        for (String id : ids) {
            await().atMost(PATIENCE).until(() -> system.api.state(id), "COMPLETED"::equals);
        }
        JsonNode placed = system.api.job(ids.get(0));
        assertThat(placed.toString()).contains("JobPlaced").contains("JobStarted").contains("JobCompleted");

        // Usage reached the accounting-service and came out as a 7-day sum per account.
        String key = Topics.accountKey(system.cluster, lab + "/team-a");
        try (Tail<BudgetUsage> usage = new Tail<>(infra, Topics.BUDGET_USAGE)) {
            await().atMost(PATIENCE).until(() -> !usage.values(r -> key.equals(r.key())
                    && r.value().getChargedGpuSeconds() > 0).isEmpty());
        }
    }

    @Test
    @Order(2)
    void givenAnOverServedTeam_whenAnUnderServedDebugJobArrives_thenItDisplacesUnallocatedThenUnprotectedNeverProtected()
            throws Exception {
        // team-a holds the whole cluster: a free (unallocated) job, a job whose protection ends in 2 s,
        // and a protected one (10 minutes).
        String free = system.api.submit(job("team-a", 1, 4, 0, true, sleep(600)));
        String unprotected = system.api.submit(withPriority(job("team-a", 1, 4, 2, true, finishFastOnRestart(600)), 5));
        String protectedJob = system.api.submit(job("team-a", 1, 4, 600, true, sleep(600)));
        try {
            debugJobsDisplaceInOrder(free, unprotected, protectedJob);
        } finally {
            // whatever happened, the later scenarios find the cluster quiet
            cancel(free, unprotected, protectedJob);
        }
    }

    private void debugJobsDisplaceInOrder(String free, String unprotected, String protectedJob) throws Exception {
        for (String id : List.of(free, unprotected, protectedJob)) {
            await().atMost(PATIENCE).until(() -> system.api.state(id), "RUNNING"::equals);
        }
        // Let team-a's usage make it over-served and the 2 s protection pass.
        await().atMost(PATIENCE).until(() -> protectionOver(unprotected));

        // debug1 holds its GPUs until debug2 has displaced its victim: were it done first, debug2 would take its
        // place without preempting anyone (on a slow machine the 3 s it once ran were gone before debug2 arrived)
        String debug1 = system.api.submit(job("team-b", 1, 4, 60, false, sleep(30)));
        await().atMost(PATIENCE).until(() -> system.api.state(debug1), s -> s.equals("RUNNING") || s.equals("COMPLETED"));
        assertThat(system.api.job(free).toString()).contains("JobPreempted");

        String debug2 = system.api.submit(job("team-c", 1, 4, 60, false, sleep(3)));
        await().atMost(PATIENCE).until(() -> system.api.job(unprotected).toString().contains("JobPreempted"));
        await().atMost(PATIENCE).until(() -> system.api.state(debug2), s -> s.equals("RUNNING") || s.equals("COMPLETED"));

        // The protected job was never touched.
        assertThat(system.api.state(protectedJob)).isEqualTo("RUNNING");
        assertThat(system.api.job(protectedJob).toString()).doesNotContain("JobPreempted");
        // Who displaced whom, and why, is on the record.
        JsonNode preempted = system.api.job(unprotected);
        assertThat(preempted.toString()).contains(debug2);

        // The preempted resumable job queues again and, once the debug jobs end, runs and finishes.
        await().atMost(PATIENCE).until(() -> system.api.state(unprotected), "COMPLETED"::equals);
        assertThat(system.api.job(unprotected).toString()).contains("JobRequeued");
    }

    @Test
    @Order(3)
    void givenARunningJobOnANode_whenTheNodeIsDrained_thenTheJobIsReleasedAfterItsMinimumRuntimeAndTheNodeReportsDrained()
            throws Exception {
        String id = system.api.submit(job("team-c", 1, 4, 3, true, sleep(600)));
        await().atMost(PATIENCE).until(() -> system.api.state(id), "RUNNING"::equals);
        String node = system.api.job(id).toString().replaceAll(".*\"(" + system.cluster + "-node-\\d+)\".*", "$1");
        assertThat(node).startsWith(system.cluster + "-node-");

        try (KafkaProducer<String, NodeStatus> producer = infra.producer()) {
            producer.send(new ProducerRecord<>(Topics.NODE_STATUS.name(), node, NodeStatus.newBuilder()
                    .setEventId(UUID.randomUUID().toString()).setOccurredAt(Instant.now()).setNodeId(node)
                    .setPayload(NodeDrainRequested.newBuilder().setCluster(system.cluster).setRequestedBy("e2e")
                            .setReason("maintenance").build())
                    .build())).get();
        }
        try (Tail<NodeStatus> status = new Tail<>(infra, Topics.NODE_STATUS)) {
            await().atMost(PATIENCE).until(() -> !status.values(r -> node.equals(r.key())
                    && r.value().getPayload() instanceof NodeDrained).isEmpty());
        }
        assertThat(system.api.job(id).toString()).contains("JobPreempted");
        // the released job runs again elsewhere for ten minutes: withdrawn, and the node undrained, so that the later
        // scenarios find the whole cluster, quiet
        cancel(id);
        try (KafkaProducer<String, NodeStatus> producer = infra.producer()) {
            producer.send(new ProducerRecord<>(Topics.NODE_STATUS.name(), node, NodeStatus.newBuilder()
                    .setEventId(UUID.randomUUID().toString()).setOccurredAt(Instant.now()).setNodeId(node)
                    .setPayload(dev.allot.schemas.NodeUndrained.newBuilder().setCluster(system.cluster)
                            .setRequestedBy("e2e").build())
                    .build())).get();
        }
    }

    @Test
    @Order(4)
    void givenGarbageOnJobRequests_whenConsumed_thenItLandsOnDeadLettersWithAReasonAndTheSchedulerKeepsGoing()
            throws Exception {
        byte[] garbage = "definitely not avro".getBytes(StandardCharsets.UTF_8);
        try (KafkaProducer<byte[], byte[]> raw = new KafkaProducer<>(Map.of("bootstrap.servers", infra.bootstrapServers()),
                new ByteArraySerializer(), new ByteArraySerializer())) {
            raw.send(new ProducerRecord<>(Topics.JOB_REQUESTS.name(), "garbage".getBytes(StandardCharsets.UTF_8), garbage)).get();
        }
        // Schema-invalid: well-formed Avro through the registry, but a node event, not a job request.
        String wrongKey = "wrong-schema-" + UUID.randomUUID();
        try (KafkaProducer<String, NodeStatus> producer = infra.producer()) {
            producer.send(new ProducerRecord<>(Topics.JOB_REQUESTS.name(), wrongKey, NodeStatus.newBuilder()
                    .setEventId(UUID.randomUUID().toString()).setOccurredAt(Instant.now()).setNodeId("n")
                    .setPayload(NodeDrained.newBuilder().setCluster(system.cluster).build()).build())).get();
        }
        try (Tail<DeadLetter> deadLetters = new Tail<>(infra, Topics.DEAD_LETTERS)) {
            await().atMost(PATIENCE).until(() -> {
                boolean[] seen = new boolean[2];
                for (DeadLetter letter : deadLetters.values(r -> true)) {
                    if (!letter.getSourceTopic().equals(Topics.JOB_REQUESTS.name()) || letter.getReason().isBlank()) {
                        continue;
                    }
                    String value = letter.getValue() == null ? ""
                            : StandardCharsets.UTF_8.decode(letter.getValue().duplicate()).toString();
                    String key = letter.getKey() == null ? ""
                            : StandardCharsets.UTF_8.decode(letter.getKey().duplicate()).toString();
                    seen[0] |= value.equals("definitely not avro");
                    seen[1] |= key.equals(wrongKey);
                }
                return seen[0] && seen[1];
            });
        }
        String after = system.api.submit(job("team-b", 1, 1, 5, false, sleep(1)));
        await().atMost(PATIENCE).until(() -> system.api.state(after), "COMPLETED"::equals);
    }

    @Test
    @Order(5)
    void givenSubmissionsInFlight_whenTheSchedulerIsKilled_thenAfterRestartNoGpuIsDoubleBookedAndEveryJobIsAccountedFor()
            throws Exception {
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 24; i++) {
            ids.add(system.api.submit(job(List.of("team-a", "team-b", "team-c").get(i % 3), 1, 1 + i % 3, 5, true,
                    sleep(1 + i % 2))));
            if (i == 8) {
                system.crashAndRestartScheduler(); // SIGKILL: no clean shutdown, no commit
            }
        }
        for (String id : ids) {
            try {
                await("job " + id + " (submission " + ids.indexOf(id) + ") completes").atMost(PATIENCE.multipliedBy(2))
                        .until(() -> system.api.state(id), "COMPLETED"::equals);
            } catch (org.awaitility.core.ConditionTimeoutException e) {
                // What the log says about the job (placements, agent reports, verdicts) and the queue, for the
                // service logs in target/e2e-logs (a restarted service logs to <module>-2.log).
                String details;
                try {
                    details = system.api.job(id) + "\nqueue: " + system.api.queue(system.cluster);
                } catch (RuntimeException unreachable) {
                    details = "(budget-service did not answer: " + unreachable + ")";
                }
                throw new AssertionError("job " + id + " (submission " + ids.indexOf(id) + ", scheduler restarted after "
                        + "submission 8) did not complete: " + details, e);
            }
        }

        // From the log itself: every job placed exactly once, and no GPU held by two jobs at a time.
        Map<String, List<dev.allot.schemas.JobEvent>> byJob = new HashMap<>();
        try (Tail<dev.allot.schemas.JobEvent> jobEvents = new Tail<>(infra, Topics.JOB_EVENTS)) {
            await().atMost(PATIENCE).until(() -> ids.stream().allMatch(id -> jobEvents.values(r -> id.equals(r.key()))
                    .stream().anyMatch(e -> e.getPayload() instanceof dev.allot.schemas.JobCompleted)));
            for (ConsumerRecord<String, dev.allot.schemas.JobEvent> r : jobEvents.records()) {
                if (ids.contains(r.key())) {
                    byJob.computeIfAbsent(r.key(), k -> new ArrayList<>()).add(r.value());
                }
            }
        }
        record Hold(String job, String gpu, long from, long to) {
        }
        List<Hold> holds = new ArrayList<>();
        for (String id : ids) {
            List<dev.allot.schemas.JobEvent> events = byJob.get(id);
            List<dev.allot.schemas.JobEvent> placements = events.stream()
                    .filter(e -> e.getPayload() instanceof dev.allot.schemas.JobPlaced).toList();
            assertThat(placements).as("placements of %s; its events: %s", id, events).hasSize(1);
            assertThat(events.stream().filter(e -> e.getPayload() instanceof dev.allot.schemas.JobCompleted))
                    .as("verdicts of %s", id).hasSize(1);
            long from = placements.get(0).getOccurredAt().toEpochMilli();
            // The GPUs are free from the first sign the process ended (the agent's exit report or the verdict).
            long to = events.stream().filter(e -> e.getPayload() instanceof dev.allot.schemas.JobCompleted
                            || e.getPayload() instanceof dev.allot.schemas.JobExited)
                    .mapToLong(e -> e.getOccurredAt().toEpochMilli()).min().orElseThrow();
            for (var assignment : ((dev.allot.schemas.JobPlaced) placements.get(0).getPayload()).getAssignments()) {
                for (int gpu : assignment.getGpuIndices()) {
                    holds.add(new Hold(id, assignment.getNodeId() + "#" + gpu, from, to));
                }
            }
        }
        for (Hold a : holds) {
            for (Hold b : holds) {
                if (a != b && a.gpu().equals(b.gpu()) && !a.job().equals(b.job())) {
                    assertThat(a.to() <= b.from() || b.to() <= a.from())
                            .as("%s and %s overlap on %s", a.job(), b.job(), a.gpu()).isTrue();
                }
            }
        }
    }

    @Test
    @Order(6)
    void givenTheRunsAbove_whenEveryTopicIsReadWithAGenericConfluentConsumer_thenEveryRecordDecodesOrIsADeadLetter() {
        // A consumer that knows nothing of Allot's classes: magic byte, schema id, the schema from the
        // registry's Confluent-compatible API, Avro's generic reader.
        ConfluentCompatClient ccompat = new ConfluentCompatClient(infra.confluentCompatibleUrl());
        Map<Integer, org.apache.avro.Schema> schemas = new HashMap<>();
        Set<String> deadLetters = new java.util.HashSet<>();
        Map<String, Integer> decoded = new java.util.TreeMap<>();
        List<String> failures = new ArrayList<>();
        Map<String, List<ConsumerRecord<byte[], byte[]>>> byTopic = new HashMap<>();
        try (org.apache.kafka.clients.consumer.KafkaConsumer<byte[], byte[]> consumer = infra.rawConsumer()) {
            for (var topic : Topics.ALL) {
                byTopic.put(topic.name(), readAll(consumer, topic.name()));
            }
        }
        for (var topic : Topics.ALL) {
            for (ConsumerRecord<byte[], byte[]> r : byTopic.get(topic.name())) {
                if (r.value() == null) {
                    continue; // a tombstone on a compacted topic
                }
                try {
                    org.apache.avro.generic.GenericRecord value = decode(ccompat, schemas, r.value());
                    if (!value.getSchema().getFullName().equals(topic.valueType().getName())) {
                        // valid Avro of another topic's type (scenario 4 writes one on purpose)
                        failures.add(topic.name() + "-" + r.partition() + "@" + r.offset() + ": a "
                                + value.getSchema().getFullName() + " record");
                        continue;
                    }
                    decoded.merge(topic.name(), 1, Integer::sum);
                    if (topic.name().equals(Topics.DEAD_LETTERS.name())) {
                        deadLetters.add(value.get("sourceTopic") + "-" + value.get("partition") + "@"
                                + value.get("offset"));
                    }
                } catch (RuntimeException | java.io.IOException e) {
                    failures.add(topic.name() + "-" + r.partition() + "@" + r.offset() + ": " + e);
                }
            }
        }
        // Only the garbage the scenarios wrote on purpose does not decode, and each piece is a dead letter.
        assertThat(failures).allSatisfy(f -> assertThat(deadLetters).as(f).contains(f.substring(0, f.indexOf(':'))));
        assertThat(decoded.keySet()).contains(Topics.BUDGETS.name(), Topics.JOB_REQUESTS.name(),
                Topics.JOB_EVENTS.name(), Topics.NODE_COMMANDS.name(), Topics.NODE_STATUS.name(), Topics.USAGE.name(),
                Topics.BUDGET_USAGE.name(), Topics.QUEUE_STATUS.name(), Topics.DEAD_LETTERS.name());
        // and there is no topic outside the catalogue (no private journal)
        try (var admin = infra.admin()) {
            Set<String> names = admin.listTopics().names().get();
            assertThat(names).filteredOn(n -> !n.startsWith("_") && !n.startsWith("allot-accounting")
                            && !n.contains("-changelog") && !n.contains("-repartition"))
                    .allSatisfy(n -> assertThat(Topics.ALL).extracting(t -> t.name()).as(n).contains(n));
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    @Test
    @Order(7)
    void givenTheRunsAbove_whenAnAuditorReplaysTheLog_thenTheFiguresAreExactlyTheLiveAccountingOnes() throws Exception {
        // given every job of the scenarios ended (no usage in flight), an as-of time after them
        awaitNoJobRunningOrWaiting();
        long asOf = System.currentTimeMillis();
        // when the log is replayed from the beginning by the audit tool, as its own process
        Path root = Path.of(System.getProperty("allot.root", "..")).toAbsolutePath().normalize();
        Path app = root.resolve("accounting-service/target/quarkus-app");
        Path printed = Files.createTempFile("allot-replay", ".json");
        Process replay = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", app + "/app/*:" + app + "/lib/main/*:" + app + "/lib/boot/*",
                "dev.allot.accounting.replay.ReplayCommand", "--bootstrap", infra.bootstrapServers(),
                "--registry", infra.registryUrl(), "--from", Long.toString(asOf - 86_400_000L), "--to",
                Long.toString(asOf), "--report", "usage", "--cluster", system.cluster, "--account", lab, "--json")
                .redirectOutput(printed.toFile()).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        assertThat(replay.waitFor(PATIENCE.toSeconds(), java.util.concurrent.TimeUnit.SECONDS)).isTrue();
        assertThat(replay.exitValue()).isZero();
        JsonNode lines = new com.fasterxml.jackson.databind.ObjectMapper().readTree(printed.toFile());
        assertThat(lines.size()).isEqualTo(4); // the lab and its three teams
        // then the live accounting-service, asked for the same instant, says exactly the same
        for (JsonNode line : lines) {
            JsonNode replayed = line.get("rolling");
            String account = replayed.get("account").asText();
            assertThat(replayed.get("chargedGpuSeconds").asDouble()).as(account).isPositive();
            await(account).atMost(PATIENCE).untilAsserted(() -> {
                JsonNode live = system.api.json(system.accounting.url() + "/accounting/usage?cluster="
                        + system.cluster + "&account=" + account + "&asOf=" + asOf);
                for (String figure : List.of("chargedGpuSeconds", "unallocatedGpuSeconds", "entitledGpuSeconds")) {
                    // the same records, summed in another order (live: as they came; replay: topic by topic):
                    // equal up to the last bits of a double
                    double expected = replayed.get(figure).asDouble();
                    assertThat(live.get(figure).asDouble()).as(account + " " + figure)
                            .isCloseTo(expected, org.assertj.core.api.Assertions.within(1e-9 * Math.max(1, Math.abs(expected))));
                }
            });
        }
    }

    @Test
    @Order(8)
    void givenTheRunsAbove_whenTheSchedulerAndTheAccountingServiceAreAskedForRatios_thenTheyAreOneDefinition()
            throws Exception {
        // given every job ended, the scheduler's view of every account of the lab (charged, owed, ratio)
        Set<String> accounts = Set.of(lab, lab + "/team-a", lab + "/team-b", lab + "/team-c");
        awaitNoJobRunningOrWaiting();
        await("ratios").atMost(PATIENCE).untilAsserted(() -> {
            JsonNode core = system.api.json(system.scheduler.url() + "/scheduler/ratios");
            Map<String, JsonNode> byAccount = new HashMap<>();
            core.get("accounts").forEach(a -> byAccount.put(a.get("account").asText(), a));
            assertThat(byAccount.keySet()).containsAll(accounts);
            long at = core.get("at").asLong();
            for (String account : accounts) {
                // when the accounting-service is asked for the same account at the same instant
                JsonNode published = system.api.json(system.accounting.url() + "/accounting/usage?cluster="
                        + system.cluster + "&account=" + account + "&asOf=" + at);
                JsonNode scheduled = byAccount.get(account);
                // then what it was charged, what it is owed and the ratio are the same figures
                for (String figure : List.of("chargedGpuSeconds", "entitledGpuSeconds", "ratio")) {
                    double expected = published.get(figure).asDouble();
                    assertThat(scheduled.get(figure).asDouble()).as(account + " " + figure)
                            .isCloseTo(expected, org.assertj.core.api.Assertions.within(1e-9 * Math.max(1, expected)));
                }
                assertThat(published.get("chargedGpuSeconds").asDouble()).as(account).isPositive();
            }
        });
    }

    /** Every job the earlier scenarios left (a requeued or cancelled one may still be ending) has ended. */
    private void awaitNoJobRunningOrWaiting() {
        for (String state : List.of("RUNNING", "WAITING")) {
            await("no " + state + " job").atMost(PATIENCE.multipliedBy(2)).until(() -> system.api
                    .send("GET", "/jobs?cluster=" + system.cluster + "&state=" + state, null).json()
                    .path("count").asInt(-1) == 0);
        }
    }

    private static List<ConsumerRecord<byte[], byte[]>> readAll(
            org.apache.kafka.clients.consumer.KafkaConsumer<byte[], byte[]> consumer, String topic) {
        List<org.apache.kafka.common.TopicPartition> partitions = consumer.partitionsFor(topic).stream()
                .map(p -> new org.apache.kafka.common.TopicPartition(topic, p.partition())).toList();
        consumer.assign(partitions);
        consumer.seekToBeginning(partitions);
        Map<org.apache.kafka.common.TopicPartition, Long> end = consumer.endOffsets(partitions);
        List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (partitions.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp))) {
            assertThat(System.nanoTime()).as("reading %s", topic).isLessThan(deadline);
            consumer.poll(Duration.ofMillis(200)).forEach(records::add);
        }
        return records;
    }

    private static org.apache.avro.generic.GenericRecord decode(ConfluentCompatClient ccompat,
            Map<Integer, org.apache.avro.Schema> schemas, byte[] bytes) throws java.io.IOException {
        java.nio.ByteBuffer buffer = java.nio.ByteBuffer.wrap(bytes);
        if (bytes.length < 5 || buffer.get() != 0) {
            throw new IllegalArgumentException("not the Confluent wire format");
        }
        int id = buffer.getInt();
        org.apache.avro.Schema writer = schemas.computeIfAbsent(id, ccompat::schemaById);
        org.apache.avro.io.BinaryDecoder decoder = org.apache.avro.io.DecoderFactory.get()
                .binaryDecoder(bytes, 5, bytes.length - 5, null);
        org.apache.avro.generic.GenericRecord value =
                new org.apache.avro.generic.GenericDatumReader<org.apache.avro.generic.GenericRecord>(writer)
                        .read(null, decoder);
        if (!decoder.isEnd()) {
            throw new IllegalArgumentException("bytes left after the record");
        }
        return value;
    }

    @Test
    @Order(6)
    void givenTheCliWithAUsersToken_whenShe_submitsWaitsRunsAndCancels_thenEachCommandShowsWhatTheSystemDid()
            throws Exception {
        // given erin, a member of team-b, with a token, and the whole cluster held by a protected job that declared
        // how long it runs
        assertThat(system.api.send("PUT", "/budgets/" + lab + "/team-b",
                Map.of("share", 1, "members", List.of("erin"))).status()).isBetween(200, 204);
        CliProcess cli = new CliProcess(system.budget.url(), "erin", dev.allot.testsupport.TestTokens.user("erin"));
        Map<String, Object> whole = job("team-a", 3, 4, 600, true, sleep(600));
        whole.put("expectedDurationSeconds", 120);
        String blocker = system.api.submit(whole);
        await().atMost(PATIENCE).until(() -> system.api.state(blocker), "RUNNING"::equals);
        // "in 1m50s", "~ in 3h00m" (default run times), "> 7d" (beyond the horizon), "any moment"
        String expectedStart = "(in \\S+|~ in \\S+|> \\d+d|any moment)";

        // when she submits a job that needs a whole node: it waits, with a position and an expected start
        CliProcess.Result submitted = cli.run("submit", "-b", lab + "/team-b", "-c", system.cluster, "-g", "4",
                "--min-runtime", "1m", "--expected-duration", "30s", "--wait", "60", "--",
                "sh", "-c", "echo hello from $ALLOT_JOB_ID; sleep 1");
        assertThat(submitted.exitCode()).as(submitted.toString()).isZero();
        String id = submitted.out().lines().findFirst().orElseThrow().substring("submitted ".length());
        assertThat(submitted.out()).as(submitted.toString())
                .containsPattern("state WAITING, position 1, expected start " + expectedStart);

        // then 'jobs' lists it (hers by default) waiting first in line with its expected start
        CliProcess.Result jobs = cli.run("jobs", "-c", system.cluster);
        assertThat(jobs.exitCode()).as(jobs.toString()).isZero();
        String line = jobs.out().lines().filter(l -> l.startsWith(id + " ")).findFirst().orElseThrow();
        assertThat(line).as(jobs.toString()).contains(lab + "/team-b").contains("WAITING")
                .containsPattern(" 4 +1 +\\S+ +" + expectedStart);
        assertThat(jobs.out()).doesNotContain(blocker);
        JsonNode listed = new com.fasterxml.jackson.databind.ObjectMapper().readTree(cli.run("jobs", "-o", "json").out());
        assertThat(listed.path("jobs").get(0).path("id").asText()).isEqualTo(id);
        assertThat(listed.path("jobs").get(0).path("expectedStart").path("basis").asText())
                .isIn("DECLARED", "LEARNED", "DEFAULT", "BEYOND_HORIZON");
        // and 'why' says where it stands, what holds it and when it should start
        CliProcess.Result why = cli.run("why", id);
        assertThat(why.exitCode()).as(why.toString()).isZero();
        assertThat(why.out()).as(why.toString()).contains("Position 1 in the queue of " + system.cluster)
                .containsPattern("Expected start: " + expectedStart).contains("Reason: ")
                .contains("allocated, protected for 1m00s after each start");

        // when the blocker is cancelled her job runs to its end; 'history' tells its life in order
        system.api.send("DELETE", "/jobs/" + blocker, null);
        await().atMost(PATIENCE).untilAsserted(() -> assertThat(cli.run("jobs", "--state", "COMPLETED", "-c",
                system.cluster).out()).contains(id));
        CliProcess.Result history = cli.run("history", id);
        assertThat(history.exitCode()).as(history.toString()).isZero();
        List<String> kinds = List.of("JobSubmitted", "JobAccepted", "JobPlaced", "JobStarted", "JobExited", "JobCompleted");
        int at = -1;
        for (String kind : kinds) {
            int next = history.out().indexOf(kind, at + 1);
            assertThat(next).as(kind + " after the one before in\n" + history.out()).isGreaterThan(at);
            at = next;
        }
        assertThat(cli.run("logs", id).out()).isEqualTo("hello from " + id + "\n");

        // and a running job of hers is cancelled through the CLI; a finished one cannot be
        CliProcess.Result running = cli.run("submit", "-b", lab + "/team-b", "-c", system.cluster, "-g", "1",
                "--wait", "60", "--", "sleep", "600");
        assertThat(running.exitCode()).as(running.toString()).isZero();
        String second = running.out().lines().findFirst().orElseThrow().substring("submitted ".length());
        await().atMost(PATIENCE).until(() -> system.api.state(second), "RUNNING"::equals);
        CliProcess.Result cancel = cli.run("cancel", second, "--reason", "e2e");
        assertThat(cancel.exitCode()).as(cancel.toString()).isZero();
        assertThat(cancel.out()).contains("cancel requested for " + second);
        await().atMost(PATIENCE).until(() -> system.api.state(second), "CANCELLED"::equals);
        assertThat(cli.run("history", second).out()).contains("JobCancelRequested").contains("reason=e2e")
                .contains("JobCancelled");
        CliProcess.Result finished = cli.run("cancel", id);
        assertThat(finished.exitCode()).as(finished.toString()).isEqualTo(1);
        assertThat(finished.err()).contains("already finished");
    }

    // ---- helpers ----


    private Map<String, Object> job(String team, int replicas, int gpus, long minRuntime, boolean resumable,
                                    List<String> command) {
        Map<String, Object> job = new HashMap<>();
        job.put("budget", lab + "/" + team);
        job.put("cluster", system.cluster);
        job.put("replicas", replicas);
        job.put("gpusPerReplica", gpus);
        job.put("minRuntimeSeconds", minRuntime);
        job.put("resumable", resumable);
        job.put("command", command);
        job.put("env", Map.of("E2E_OUT", out.toString()));
        return job;
    }

    private static Map<String, Object> withPriority(Map<String, Object> job, int priority) {
        job.put("priority", priority);
        return job;
    }

    private static List<String> sleep(int seconds) {
        return List.of("sleep", String.valueOf(seconds));
    }

    private static List<String> recordGpusThenSleep(int seconds) {
        return List.of("sh", "-c", "echo \"$CUDA_VISIBLE_DEVICES\" > \"$E2E_OUT/$ALLOT_JOB_ID\"; sleep " + seconds);
    }

    /** Runs long the first time; after a restart (resumed from its checkpoint) it finishes in a second. */
    private static List<String> finishFastOnRestart(int seconds) {
        return List.of("sh", "-c", "if [ \"${ALLOT_RESTART_COUNT:-0}\" -gt 0 ]; then sleep 1; else sleep " + seconds + "; fi");
    }

    private boolean protectionOver(String id) {
        JsonNode job = system.api.job(id);
        JsonNode until = job.path("protectedUntil");
        if (until.isMissingNode() || until.isNull()) {
            return false;
        }
        Instant end = until.isNumber() ? Instant.ofEpochMilli(until.asLong()) : Instant.parse(until.asText());
        return Instant.now().isAfter(end.plusSeconds(1));
    }

    private void cancel(String... ids) {
        for (String id : ids) {
            system.api.send("DELETE", "/jobs/" + id, null);
        }
        for (String id : ids) {
            await().atMost(PATIENCE).until(() -> system.api.state(id),
                    s -> Set.of("CANCELLED", "FAILED", "COMPLETED").contains(s));
        }
    }
}
