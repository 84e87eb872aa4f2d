package dev.allot.nodeagent;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;

import dev.allot.schemas.ChargeMode;
import dev.allot.schemas.JobCheckpointed;
import dev.allot.schemas.JobEvent;
import dev.allot.schemas.JobExited;
import dev.allot.schemas.JobStarted;
import dev.allot.schemas.NodeCommand;
import dev.allot.schemas.NodeDrainRequested;
import dev.allot.schemas.NodeStatus;
import dev.allot.schemas.StartJob;
import dev.allot.schemas.catalogue.Topics;
import dev.allot.testsupport.AllotInfraTestResource;
import dev.allot.testsupport.AllotInfrastructure;
import dev.allot.testsupport.Tail;
import dev.allot.testsupport.TestTokens;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.specification.RequestSpecification;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The agent's security as it runs (real broker and registry, real processes): its API needs a credential, the
 * checkpoint callback takes the job's own token, a job's process has a clean environment and no root, and
 * secrets come from the node's store without leaving a trace in logs or topics.
 */
@QuarkusTest
@QuarkusTestResource(value = AllotInfraTestResource.class, restrictToAnnotatedClass = false)
class AgentSecurityTest {

    private static final String NODE = "test-node-1";
    private static final Duration WAIT = Duration.ofSeconds(60);
    /** In the agent JVM's environment (surefire sets it): no job may see it. */
    private static final String AGENT_CREDENTIAL = "agent-only-credential-8c1f";
    private static final Path SECRETS = Path.of("target/agent-secrets");

    private static KafkaProducer<String, NodeCommand> commands;
    private static Tail<JobEvent> jobEvents;
    private static Tail<NodeStatus> nodeStatus;
    private static final List<String> startedJobs = new ArrayList<>();

    @Inject
    AgentRuntime runtime;

    @BeforeAll
    static void connect() {
        AllotInfrastructure infra = AllotInfrastructure.shared();
        commands = infra.producer();
        jobEvents = new Tail<>(infra, Topics.JOB_EVENTS);
        nodeStatus = new Tail<>(infra, Topics.NODE_STATUS);
    }

    @AfterAll
    static void disconnect() throws InterruptedException {
        commands.close();
        jobEvents.close();
        nodeStatus.close();
    }

    @org.junit.jupiter.api.AfterEach
    void stopWhatTheTestStarted() {
        for (String job : startedJobs) {
            if (exits(job).isEmpty()) {
                send(NodeAgentTest.stop(job, NODE, epoch(), 0));
            }
        }
        await().atMost(WAIT).until(() -> startedJobs.stream().noneMatch(j -> runtime.agent().runningJobs(NODE).contains(j)));
        startedJobs.clear();
    }

    @Test
    void givenEachKindOfCaller_whenTheApiIsCalled_thenOnlyTheServiceSecretOperatorsAndAdminsGetIn() throws Exception {
        Map<String, Supplier<RequestSpecification>> refused401 = Map.of(
                "anonymous", () -> given(),
                "garbage bearer", () -> given().auth().oauth2("not-a-credential"),
                "a secret of the right length but wrong", () -> given().auth().oauth2("0".repeat(64)),
                "expired operator token", () -> given().auth().oauth2(TestTokens.token().subject("op")
                        .groups(TestTokens.OPERATOR_GROUP).expiresIn(Duration.ofSeconds(-120)).sign()),
                "operator token signed by another key", () -> given().auth().oauth2(TestTokens.token().subject("op")
                        .groups(TestTokens.OPERATOR_GROUP).signWithOtherKey()),
                "operator token for another audience", () -> given().auth().oauth2(TestTokens.token().subject("op")
                        .groups(TestTokens.OPERATOR_GROUP).audience("elsewhere").sign()),
                "alg none", () -> given().auth().oauth2(TestTokens.token().subject("op")
                        .groups(TestTokens.OPERATOR_GROUP).unsigned()));
        refused401.forEach((who, as) -> {
            as.get().get("/nodes").then().statusCode(401).body("field", equalTo("Authorization"));
            as.get().get("/jobs/any/log").then().statusCode(401);
            as.get().post("/nodes/{id}/drain", NODE).then().statusCode(401);
        });
        // a valid token of someone who is not an operator: known, but not allowed
        given().auth().oauth2(TestTokens.user("carol", "team-a")).get("/nodes").then().statusCode(403);
        given().auth().oauth2(TestTokens.user("carol", "team-a")).post("/nodes/{id}/drain", NODE).then().statusCode(403);

        AgentCredentials.asService().get("/nodes").then().statusCode(200);
        AgentCredentials.asOperator("olga").get("/nodes").then().statusCode(200);
        given().auth().oauth2(TestTokens.admin()).get("/nodes").then().statusCode(200);
        AgentCredentials.asService().get("/jobs/no-such-job/log").then().statusCode(404);
        // health and metrics stay open
        given().get("/q/health/ready").then().statusCode(200);
        given().get("/q/metrics").then().statusCode(200);

        // an operator's drain is recorded under the token's name; claiming another name is refused
        AgentCredentials.asOperator("olga").queryParam("requestedBy", "mallory").post("/nodes/{id}/drain", NODE)
                .then().statusCode(400).body("field", equalTo("requestedBy"));
        String reason = "SEC-" + UUID.randomUUID();
        AgentCredentials.asOperator("olga").queryParam("reason", reason).post("/nodes/{id}/drain", NODE)
                .then().statusCode(202);
        AgentCredentials.asOperator("olga").post("/nodes/{id}/undrain", NODE).then().statusCode(202);
        await().atMost(WAIT).untilAsserted(() -> assertThat(nodeStatus.values(r -> r.key().equals(NODE)).stream()
                .map(NodeStatus::getPayload).filter(NodeDrainRequested.class::isInstance).map(NodeDrainRequested.class::cast)
                .filter(d -> reason.equals(d.getReason())).map(NodeDrainRequested::getRequestedBy)).containsExactly("olga"));
        assertThat(Files.exists(AgentCredentials.SECRET_FILE)).isTrue();
        assertThat(PosixFilePermissions.toString(permissions(AgentCredentials.SECRET_FILE))).isEqualTo("rw-------");
    }

    @Test
    void givenTwoJobs_whenTheyCallBack_thenEachReportsOnlyItsOwnCheckpointWithItsOwnToken() throws Exception {
        String a = "tok-a-" + UUID.randomUUID();
        String b = "tok-b-" + UUID.randomUUID();
        // Job a calls back by itself, as a job would: its token and URL are in its environment.
        start(a, List.of(0), List.of("sh", "-c", "printf %s \"$ALLOT_JOB_TOKEN\" > \"$ALLOT_CHECKPOINT_DIR/token\";"
                + " curl -s -o /dev/null -w '%{http_code}\\n' -X POST -H \"Authorization: Bearer $ALLOT_JOB_TOKEN\""
                + " \"$ALLOT_CHECKPOINT_URL&location=/ckpt/a-self\"; sleep 600"), Map.of(), "lab/team-a");
        start(b, List.of(1), List.of("sh", "-c", "printf %s \"$ALLOT_JOB_TOKEN\" > \"$ALLOT_CHECKPOINT_DIR/token\";"
                + " sleep 600"), Map.of(), "lab/team-a");
        Path tokenA = Path.of("target/agent-state/checkpoints/" + a + "/replica-0/token");
        Path tokenB = Path.of("target/agent-state/checkpoints/" + b + "/replica-0/token");
        await().atMost(WAIT).ignoreExceptions().until(() -> Files.size(tokenA) > 0 && Files.size(tokenB) > 0);
        await().atMost(WAIT).untilAsserted(() -> assertThat(checkpoints(a)).containsExactly("/ckpt/a-self"));
        String tokA = Files.readString(tokenA);
        String tokB = Files.readString(tokenB);
        assertThat(tokA).hasSizeGreaterThanOrEqualTo(43).isNotEqualTo(tokB);

        given().post("/jobs/{id}/checkpoint", a).then().statusCode(401);
        given().auth().oauth2(tokB).queryParam("location", "/ckpt/forged").post("/jobs/{id}/checkpoint", a)
                .then().statusCode(403);
        given().auth().oauth2(tokA).queryParam("replica", 1).post("/jobs/{id}/checkpoint", a).then().statusCode(403);
        // the agent's own credentials are not a job's either
        AgentCredentials.asService().post("/jobs/{id}/checkpoint", a).then().statusCode(403);
        given().auth().oauth2(tokB).queryParam("location", "/ckpt/b-own").post("/jobs/{id}/checkpoint", b)
                .then().statusCode(202);

        await().atMost(WAIT).untilAsserted(() -> assertThat(checkpoints(b)).containsExactly("/ckpt/b-own"));
        assertThat(checkpoints(a)).containsExactly("/ckpt/a-self");
        // what the job's own curl got back
        await().atMost(WAIT).untilAsserted(() -> assertThat(log(a)).startsWith("202\n"));
    }

    @Test
    void givenAnAgentWithCredentialsInItsEnvironment_whenAJobRuns_thenItSeesOnlyItsCleanEnvironmentAndIsNotRoot()
            throws Exception {
        assertThat(System.getenv("ALLOT_TEST_AGENT_CREDENTIAL")).isEqualTo(AGENT_CREDENTIAL); // the premise
        String job = "clean-" + UUID.randomUUID();
        start(job, List.of(2, 3), List.of("sh", "-c", "env; echo \"job-uid=$(id -u)\"; echo \"job-pwd=$(pwd)\";"
                        + " touch here && echo work-dir-writable; echo x > \"$ALLOT_CHECKPOINT_DIR/probe\" && echo ckpt-writable"),
                Map.of("FOO", "bar", "ALLOT_JOB_ID", "forged", "LD_PRELOAD", "/nonexistent.so"), "lab/team-a");
        await().atMost(WAIT).until(() -> !exits(job).isEmpty());
        assertThat(exits(job).get(0).getExitCode()).isZero();

        String out = log(job);
        Map<String, String> env = new java.util.TreeMap<>();
        out.lines().filter(l -> l.matches("[A-Za-z_][A-Za-z0-9_]*=.*")).forEach(l -> env.put(l.substring(0, l.indexOf('=')),
                l.substring(l.indexOf('=') + 1)));
        assertThat(out).doesNotContain(AGENT_CREDENTIAL).doesNotContain("ALLOT_TEST_AGENT_CREDENTIAL");
        assertThat(env).containsEntry("FOO", "bar").containsEntry("CUDA_VISIBLE_DEVICES", "2,3")
                .containsEntry("ALLOT_JOB_ID", job).containsEntry("PATH", "/usr/local/bin:/usr/bin:/bin")
                .containsKeys("ALLOT_JOB_TOKEN", "ALLOT_CHECKPOINT_DIR", "ALLOT_PREEMPT_NOTICE_FILE", "ALLOT_CHECKPOINT_URL",
                        "HOME", "LD_PRELOAD")
                .doesNotContainKeys("JAVA_HOME", "MAVEN_OPTS", "MAVEN_HOME", "JAVA_TOOL_OPTIONS", "CLASSPATH");
        // nothing else of the agent's: every variable is Allot's, the job's, or the few a shell sets itself
        List<String> allowed = List.of("FOO", "LD_PRELOAD", "CUDA_VISIBLE_DEVICES", "PATH", "HOME", "USER", "LOGNAME",
                "PWD", "OLDPWD", "SHLVL", "_");
        assertThat(env.keySet()).allMatch(k -> k.startsWith("ALLOT_") || allowed.contains(k), "only a job's variables");
        Path work = Path.of("target/agent-state/work/" + job + "/replica-0").toAbsolutePath();
        assertThat(env.get("HOME")).isEqualTo(work.toString());
        assertThat(out).contains("job-pwd=" + work, "work-dir-writable", "ckpt-writable");
        int uid = Integer.parseInt(out.lines().filter(l -> l.startsWith("job-uid=")).findFirst().orElseThrow().substring(8));
        if ("root".equals(System.getProperty("user.name"))) {
            assertThat(uid).as("a root agent runs jobs as nobody").isNotZero()
                    .isEqualTo((Integer) Files.getAttribute(work, "unix:uid"));
        }
        // the job's output is the agent's alone on disk; the API (budget-service) decides who reads it
        Path logFile = Path.of("target/agent-state/logs/" + job + ".r0.log");
        assertThat(PosixFilePermissions.toString(permissions(logFile))).isEqualTo("rw-------");
        assertThat(PosixFilePermissions.toString(permissions(logFile.getParent()))).isEqualTo("rwx------");
        assertThat(PosixFilePermissions.toString(permissions(work))).isEqualTo("rwx------");
    }

    @Test
    void givenSecretsInTheNodesStore_whenJobsAskForThem_thenTheyGetTheirBudgetsValuesAndNothingLeaks() throws Exception {
        String org = "sec" + UUID.randomUUID().toString().substring(0, 8);
        String value = "s3cr3t-" + UUID.randomUUID();
        String shared = "shared-" + UUID.randomUUID();
        secret(org + "/team/api-key", value, "rw-------");
        secret(org + "/shared", shared, "r--------");            // an ancestor's: every team beneath it
        secret(org + "/other/only-other", "not-yours", "rw-------");
        secret(org + "/team/loose", "world-readable", "rw-r--r--");

        String ok = "secret-ok-" + UUID.randomUUID();
        start(ok, List.of(0), List.of("sh", "-c", "printf %s \"$API_KEY\" | sha256sum; printf %s \"$SHARED\" | sha256sum"),
                Map.of("secret:API_KEY", "api-key", "secret:SHARED", "shared", "PLAIN", "x"), org + "/team");
        String missing = "secret-missing-" + UUID.randomUUID();
        start(missing, List.of(1), List.of("true"), Map.of("secret:K", "nope"), org + "/team");
        String foreign = "secret-foreign-" + UUID.randomUUID();
        start(foreign, List.of(2), List.of("true"), Map.of("secret:K", "only-other"), org + "/team");
        String loose = "secret-loose-" + UUID.randomUUID();
        start(loose, List.of(3), List.of("true"), Map.of("secret:K", "loose"), org + "/team");

        await().atMost(WAIT).until(() -> !exits(ok).isEmpty() && !exits(missing).isEmpty() && !exits(foreign).isEmpty()
                && !exits(loose).isEmpty());
        assertThat(exits(ok).get(0).getExitCode()).isZero();
        assertThat(log(ok)).contains(sha256(value), sha256(shared)).doesNotContain(value);
        for (String refused : List.of(missing, foreign, loose)) {
            assertThat(exits(refused).get(0).getExitCode()).isEqualTo(127);
            assertThat(payloads(refused, JobStarted.class)).isEmpty();
        }
        assertThat(log(missing)).contains("no secret 'nope' for budget '" + org + "/team'");
        assertThat(log(foreign)).contains("no secret 'only-other'");
        assertThat(log(loose)).contains("secret 'loose' is readable by others").doesNotContain("world-readable");

        // never in the agent's log, never on a topic
        Path agentLog = Path.of("target/node-agent-test.log");
        await().atMost(WAIT).untilAsserted(() -> assertThat(Files.readString(agentLog)).contains(ok));
        List<String> values = List.of(value, shared, "not-yours", "world-readable");
        assertThat(Files.readString(agentLog)).doesNotContain(values);
        assertThat(foundIn(List.of(Topics.NODE_COMMANDS.name(), Topics.JOB_EVENTS.name(), Topics.NODE_STATUS.name(),
                Topics.USAGE.name(), Topics.DEAD_LETTERS.name()), values)).isEmpty();
    }

    // --- helpers -------------------------------------------------------------------------------------------

    private static void secret(String path, String value, String mode) throws Exception {
        Path file = SECRETS.resolve(path);
        Files.createDirectories(file.getParent());
        Files.writeString(file, value + "\n");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString(mode));
    }

    private long epoch() {
        return runtime.agent().nodes().stream().filter(n -> n.nodeId().equals(NODE)).findFirst().orElseThrow().epoch();
    }

    private void start(String job, List<Integer> gpus, List<String> argv, Map<String, String> env, String budget) {
        startedJobs.add(job);
        send(NodeCommand.newBuilder().setEventId(UUID.randomUUID().toString()).setOccurredAt(Instant.now())
                .setPayload(StartJob.newBuilder().setJobId(job).setNodeId(NODE).setNodeEpoch(epoch())
                        .setReplicaIndex(0).setReplicas(1).setGpuIndices(gpus).setCommand(argv).setEnv(env)
                        .setRestartCount(0).setBudget(budget).setCluster("test").setChargeMode(ChargeMode.ALLOCATED)
                        .build())
                .build());
    }

    private static void send(NodeCommand command) {
        try {
            commands.send(new ProducerRecord<>(Topics.NODE_COMMANDS.name(), NODE, command)).get();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static <T> List<T> payloads(String jobId, Class<T> type) {
        return jobEvents.values(r -> r.key().equals(jobId)).stream()
                .map(JobEvent::getPayload).filter(type::isInstance).map(type::cast).toList();
    }

    private static List<JobExited> exits(String jobId) {
        return payloads(jobId, JobExited.class);
    }

    private static List<String> checkpoints(String jobId) {
        return payloads(jobId, JobCheckpointed.class).stream().map(JobCheckpointed::getLocation).toList();
    }

    /** The job's output through the agent's API, as the budget-service reads it. */
    private static String log(String jobId) {
        return AgentCredentials.asService().get("/jobs/{id}/log", jobId).then().statusCode(200).extract().path("text");
    }

    private static java.util.Set<java.nio.file.attribute.PosixFilePermission> permissions(Path path) throws Exception {
        return Files.getPosixFilePermissions(path);
    }

    private static String sha256(String text) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
    }

    /** Which of the texts some record of the topics (key or value, every byte from the start) holds. */
    private static List<String> foundIn(List<String> topics, List<String> texts) {
        List<String> found = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = AllotInfrastructure.shared().rawConsumer()) {
            List<TopicPartition> partitions = topics.stream().flatMap(t -> consumer.partitionsFor(t).stream()
                    .map(p -> new TopicPartition(t, p.partition()))).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
            while (partitions.stream().anyMatch(p -> consumer.position(p) < end.get(p))) {
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                    for (String text : texts) {
                        byte[] needle = text.getBytes(StandardCharsets.UTF_8);
                        if (indexOf(record.value(), needle) >= 0 || indexOf(record.key(), needle) >= 0) {
                            found.add(record.topic() + ": " + text);
                        }
                    }
                }
            }
        }
        return found;
    }

    private static int indexOf(byte[] haystack, byte[] needle) {
        if (haystack == null) {
            return -1;
        }
        outer:
        for (int i = 0; i + needle.length <= haystack.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }
}
