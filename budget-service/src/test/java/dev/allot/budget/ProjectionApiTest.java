package dev.allot.budget;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.assertj.core.api.Assertions.withinPercentage;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.not;

import dev.allot.schemas.AccountRatio;
import dev.allot.schemas.BudgetUsage;
import dev.allot.schemas.DeadLetter;
import dev.allot.schemas.JobState;
import dev.allot.schemas.NodeRegistered;
import dev.allot.schemas.NodeStatus;
import dev.allot.schemas.QueueEntry;
import dev.allot.schemas.QueueSnapshot;
import dev.allot.schemas.catalogue.Topics;
import dev.allot.testsupport.AllotInfraTestResource;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

/** What the service reads from others (scheduler, agents, accounting) shows in its answers. */
@QuarkusTest
@QuarkusTestResource(value = AllotInfraTestResource.class, restrictToAnnotatedClass = false)
class ProjectionApiTest {

    @Test
    void givenAQueueSnapshot_whenTheQueueIsRead_thenPositionsReasonsAccountsAheadAndExpectedStartsShow() {
        String cluster = TestLog.uniquePrefix();
        Instant protectedUntil = Instant.parse("2030-01-01T00:00:00Z");
        Instant expectedStart = Instant.parse("2030-01-01T02:00:00Z");
        Instant estimatedAt = Instant.parse("2029-12-31T23:59:58Z");
        QueueSnapshot snapshot = QueueSnapshot.newBuilder().setCluster(cluster).setAt(Instant.now())
                .setEstimatedAt(estimatedAt).setEstimateHorizonSeconds(86_400L)
                .setEntries(List.of(
                        QueueEntry.newBuilder().setJobId("w1").setAccount("lab/b").setState(JobState.WAITING)
                                .setPosition(1).setGpus(8).setReason("lab/a ranks ahead (ratio 0.20)")
                                .setAccountsAhead(List.of(new AccountRatio("lab/a", 20.0, 100.0, 0.2)))
                                .setProtectedUntil(null).setExpectedStart(expectedStart)
                                .setExpectedStartBasis(dev.allot.schemas.StartEstimateBasis.DECLARED).build(),
                        QueueEntry.newBuilder().setJobId("r1").setAccount("lab/a").setState(JobState.RUNNING)
                                .setPosition(null).setGpus(4).setReason("protected until 2030")
                                .setAccountsAhead(List.of()).setProtectedUntil(protectedUntil).build()))
                .build();

        Api.asAdmin().queryParam("cluster", cluster).when().get("/queue").then().statusCode(200)
                .body("entries.size()", equalTo(0)).body("at", equalTo(null));
        TestLog.publish(Topics.QUEUE_STATUS, cluster, snapshot);

        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> Api.asAdmin().queryParam("cluster", cluster)
                .when().get("/queue").then().statusCode(200)
                .body("cluster", equalTo(cluster))
                .body("entries.jobId", equalTo(List.of("w1", "r1")))
                .body("entries[0].position", equalTo(1))
                .body("entries[0].state", equalTo("WAITING"))
                .body("entries[0].reason", equalTo("lab/a ranks ahead (ratio 0.20)"))
                .body("entries[0].accountsAhead[0].account", equalTo("lab/a"))
                .body("entries[0].accountsAhead[0].ratio", equalTo(0.2f))
                .body("entries[1].position", equalTo(null))
                .body("entries[1].protectedUntil", equalTo(protectedUntil.toString()))
                .body("entries[0].expectedStart", equalTo(expectedStart.toString()))
                .body("entries[0].expectedStartBasis", equalTo("DECLARED"))
                .body("entries[1].expectedStart", equalTo(null))
                .body("entries[1].expectedStartBasis", equalTo(null))
                .body("estimatedAt", equalTo(estimatedAt.toString()))
                .body("estimateHorizonSeconds", equalTo(86_400)));
    }

    @Test
    void givenBudgetEventsFromTheLog_whenAChildArrivesBeforeItsParent_thenItIsAnOrphanUntilTheParentArrives() {
        // as after compaction of the budgets topic, or from another budget-service instance
        String org = TestLog.uniquePrefix();
        TestLog.publish(Topics.BUDGETS, org + "/team", budgetDefined(org + "/team", org, 2));
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> Api.asAdmin().when().get("/budgets").then()
                .body("orphans", hasItem(org + "/team")));

        TestLog.publish(Topics.BUDGETS, org, budgetDefined(org, null, 1));

        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> Api.asAdmin().when().get("/budgets/" + org).then()
                .statusCode(200)
                .body("children[0].path", equalTo(org + "/team"))
                .body("children[0].share", equalTo(2.0f))
                .body("children[0].fractionOfParent", equalTo(1.0f)));
        Api.asAdmin().when().get("/budgets").then().body("orphans", not(
                hasItem(org + "/team")));
        // validation uses what the log said: the parent defined elsewhere is known
        BudgetApiTest.put(org + "/team/sub", "{\"share\":1}", 200);
    }

    private static dev.allot.schemas.BudgetEvent budgetDefined(String path, String parent, double share) {
        return dev.allot.schemas.BudgetEvent.newBuilder().setEventId(UUID.randomUUID().toString())
                .setOccurredAt(Instant.now())
                .setPayload(dev.allot.schemas.BudgetDefined.newBuilder().setPath(path).setParent(parent)
                        .setShare(share).setEffectiveAt(Instant.now()).setDefinedBy("another-instance").build())
                .build();
    }

    @Test
    void givenNoCluster_whenTheQueueIsRead_thenA400NamesTheCluster() {
        Api.asAdmin().when().get("/queue").then().statusCode(400).body("field", equalTo("cluster"));
    }

    @Test
    void givenNodesAndUsage_whenTheTreeIsRead_thenEntitlementUsageAndRatioShowPerCluster() {
        String org = TestLog.uniquePrefix();
        String cluster = "c-" + org;
        BudgetApiTest.put(org, "{\"share\":1}", 200);
        BudgetApiTest.put(org + "/a", "{\"share\":3}", 200);
        BudgetApiTest.put(org + "/b", "{\"share\":1}", 200);
        registerNode(cluster, org + "-n1", 8);
        registerNode(cluster, org + "-n2", 8);
        registerNode(cluster, org + "-n2", 4); // a node re-registers: its latest GPU count counts
        Instant end = Instant.now();
        Instant start = end.minus(Duration.ofDays(7));
        TestLog.publish(Topics.BUDGET_USAGE, Topics.accountKey(cluster, org + "/a"), BudgetUsage.newBuilder()
                .setAccount(org + "/a").setCluster(cluster).setWindowStart(start).setWindowEnd(end)
                .setChargedGpuSeconds(7200).setUnallocatedGpuSeconds(3600)
                .setEntitledGpuSeconds(14400.0).setRatio(0.5).build());
        TestLog.publish(Topics.BUDGET_USAGE, Topics.accountKey(cluster, org + "/b"), BudgetUsage.newBuilder()
                .setAccount(org + "/b").setCluster(cluster).setWindowStart(start).setWindowEnd(end)
                .setChargedGpuSeconds(3600).setUnallocatedGpuSeconds(0)
                .setEntitledGpuSeconds(null).setRatio(null).build());

        await().atMost(Duration.ofSeconds(20)).ignoreExceptions().untilAsserted(() -> {
            JsonPath a = Api.asAdmin().when().get("/budgets/" + org + "/a").then().statusCode(200).extract().jsonPath();
            double fraction = a.getDouble("fractionOfCluster");
            assertThat(a.getInt("entitlement['" + cluster + "'].capacityGpus")).isEqualTo(12);
            assertThat(a.getDouble("entitlement['" + cluster + "'].gpus")).isCloseTo(fraction * 12, within(1e-4));
            assertThat(a.getDouble("usage['" + cluster + "'].chargedGpuHours")).isCloseTo(2.0, within(1e-9));
            assertThat(a.getDouble("usage['" + cluster + "'].unallocatedGpuHours")).isCloseTo(1.0, within(1e-9));
            assertThat(a.getDouble("usage['" + cluster + "'].entitledGpuHours")).isCloseTo(4.0, within(1e-9));
            assertThat(a.getDouble("usage['" + cluster + "'].ratio")).isCloseTo(0.5, within(1e-9));

            // no entitlement from the accounting-service: today's entitlement since b was created (moments
            // before the window's end), not the whole 7-day window
            JsonPath b = Api.asAdmin().when().get("/budgets/" + org + "/b").then().statusCode(200).extract().jsonPath();
            double sinceCreated = Duration.between(Instant.parse(b.getString("createdAt")), end).toMillis() / 3_600_000.0;
            assertThat(sinceCreated).isBetween(0.0, 1.0);
            double entitledHours = b.getDouble("fractionOfCluster") * 12 * sinceCreated;
            assertThat(b.getDouble("usage['" + cluster + "'].entitledGpuHours")).isCloseTo(entitledHours, withinPercentage(0.01));
            assertThat(b.getDouble("usage['" + cluster + "'].ratio")).isCloseTo(1.0 / entitledHours, withinPercentage(0.01));
            // relative: JsonPath reads numbers as floats, and the fraction shrinks with every root other tests add
            assertThat(a.getDouble("fractionOfCluster")).isCloseTo(3 * b.getDouble("fractionOfCluster"),
                    withinPercentage(0.001));
        });
        Api.asAdmin().when().get("/budgets").then().body("clusters['" + cluster + "']", equalTo(12));
    }

    @Test
    void givenGarbageBytesOnATopicItReads_whenTheyArrive_thenADeadLetterNamesThem_andTheServiceKeepsGoing() {
        String cluster = TestLog.uniquePrefix();
        try (KafkaProducer<byte[], byte[]> raw = new KafkaProducer<>(
                java.util.Map.of("bootstrap.servers", TestLog.infra().bootstrapServers()),
                new ByteArraySerializer(), new ByteArraySerializer())) {
            raw.send(new ProducerRecord<>(Topics.QUEUE_STATUS.name(), cluster.getBytes(StandardCharsets.UTF_8),
                    "not avro at all".getBytes(StandardCharsets.UTF_8))).get();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }

        List<ConsumerRecord<String, DeadLetter>> letters = TestLog.read(Topics.DEAD_LETTERS,
                key -> key.equals(Topics.QUEUE_STATUS.name()),
                seen -> seen.stream().anyMatch(r -> cluster.equals(keyOf(r.value()))));
        DeadLetter letter = letters.stream().filter(r -> cluster.equals(keyOf(r.value()))).findFirst()
                .orElseThrow().value();
        assertThat(letter.getConsumer()).isEqualTo("budget-service");
        assertThat(letter.getSourceTopic()).isEqualTo(Topics.QUEUE_STATUS.name());
        assertThat(letter.getReason()).startsWith("cannot deserialise");

        TestLog.publish(Topics.QUEUE_STATUS, cluster, QueueSnapshot.newBuilder().setCluster(cluster)
                .setAt(Instant.now()).setEntries(List.of()).build());
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> Api.asAdmin().queryParam("cluster", cluster)
                .when().get("/queue").then().body("at", org.hamcrest.Matchers.notNullValue()));
        given().when().get("/q/metrics").then().statusCode(200)
                .body(org.hamcrest.Matchers.containsString("allot_dead_letters_total"));
    }

    private static String keyOf(DeadLetter letter) {
        if (letter.getKey() == null) {
            return null;
        }
        java.nio.ByteBuffer key = letter.getKey().duplicate();
        byte[] bytes = new byte[key.remaining()];
        key.get(bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }

    private static void registerNode(String cluster, String nodeId, int gpus) {
        TestLog.publish(Topics.NODE_STATUS, nodeId, NodeStatus.newBuilder()
                .setEventId(UUID.randomUUID().toString()).setOccurredAt(Instant.now()).setNodeId(nodeId)
                .setPayload(new NodeRegistered(cluster, gpus, "fake", 1L, "test-agent", null)).build());
    }
}
