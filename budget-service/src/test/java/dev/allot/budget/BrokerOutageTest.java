package dev.allot.budget;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.allot.schemas.NodeRegistered;
import dev.allot.schemas.NodeStatus;
import dev.allot.schemas.catalogue.Topics;
import dev.allot.testsupport.RestartableInfraTestResource;
import dev.allot.testsupport.RestartableInfrastructure;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.restassured.http.ContentType;
import io.restassured.path.json.JsonPath;
import io.restassured.response.Response;
import io.restassured.specification.RequestSpecification;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Function;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;

/**
 * The broker goes away under a running budget-service (a broker of this test's own, stopped for real): every
 * write answers 503 with the API's error body within {@code allot.budget.write-timeout} (3 s here), none of them
 * is written later when the broker returns, and every write works again once it has. The time each answer took is
 * printed (measured, not asserted: a loaded machine's clock proves nothing).
 */
@QuarkusTest
@TestProfile(BrokerOutageTest.ShortWriteTimeout.class)
class BrokerOutageTest {

    /** The bound under test, short so that the test is. */
    public static final class ShortWriteTimeout implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("allot.budget.write-timeout", "3s");
        }

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

    private final RestartableInfrastructure infra = RestartableInfrastructure.dedicated();

    @Test
    void givenTheBrokerIsDown_whenEveryKindOfWriteIsMade_thenEachAnswers503InTime_andNothingIsWrittenLater()
            throws Exception {
        String org = "outage-" + UUID.randomUUID().toString().substring(0, 8);
        String team = org + "/team-a";
        String node = "outage-node-" + UUID.randomUUID().toString().substring(0, 6);
        String cluster = "outage";
        registerNode(cluster, node);
        put(Api.asAdmin(), org, "{\"share\":1,\"owners\":[\"dave\"]}").then().statusCode(200);
        put(Api.asAdmin(), team, "{\"share\":1,\"members\":[\"carol\"]}").then().statusCode(200);
        String running = submit("job-" + UUID.randomUUID(), team, cluster).then().statusCode(202).extract().path("id");

        infra.stopBroker();
        String refusedJob = "job-" + UUID.randomUUID();
        Map<String, Function<RequestSpecification, Response>> writes = new LinkedHashMap<>();
        writes.put("POST /jobs", r -> submit(refusedJob, team, cluster));
        writes.put("PUT /budgets/{path}", r -> put(Api.asAdmin(), org + "/team-b", "{\"share\":2}"));
        writes.put("DELETE /budgets/{path}", r -> Api.asAdmin().when().delete("/budgets/" + team));
        writes.put("DELETE /jobs/{id}", r -> Api.as("carol").header("X-Allot-Submitter", "carol")
                .when().delete("/jobs/" + running));
        writes.put("POST /nodes/{id}/drain", r -> Api.as("olga", "allot-operators").when()
                .post("/nodes/" + node + "/drain?reason=outage"));
        writes.put("POST /nodes/{id}/undrain", r -> Api.as("olga", "allot-operators").when()
                .post("/nodes/" + node + "/undrain"));
        List<String> timings = new ArrayList<>();
        try {
            for (Map.Entry<String, Function<RequestSpecification, Response>> write : writes.entrySet()) {
                long began = System.nanoTime();
                Response answer = write.getValue().apply(null);
                long millis = (System.nanoTime() - began) / 1_000_000;
                timings.add(write.getKey() + " " + answer.statusCode() + " in " + millis + " ms");
                assertThat(answer.statusCode()).as(write.getKey() + ": " + answer.asString()).isEqualTo(503);
                assertThat(answer.contentType()).startsWith("application/json");
                JsonPath body = answer.jsonPath();
                assertThat(body.getInt("status")).isEqualTo(503);
                assertThat(body.getString("field")).isNotBlank();
                assertThat(body.getString("message")).contains("Kafka did not acknowledge").contains("PT3S");
            }
        } finally {
            System.out.println("broker down, write-timeout 3s (load " + load() + "): " + timings);
            infra.startBroker();
        }

        // The broker is back: writes work again, the refused submission's id among them (a retry is safe) ...
        await().atMost(Duration.ofMinutes(1)).untilAsserted(() ->
                put(Api.asAdmin(), org + "/team-c", "{\"share\":1}").then().statusCode(200));
        submit(refusedJob, team, cluster).then().statusCode(202);
        Api.as("olga", "allot-operators").when().post("/nodes/" + node + "/drain?reason=back").then().statusCode(202);

        // ... and none of the refused writes was made behind the caller's back.
        List<ConsumerRecord<byte[], byte[]>> budgets = readAll(Topics.BUDGETS.name());
        assertThat(keys(budgets)).contains(org + "/team-c").doesNotContain(org + "/team-b");
        assertThat(keys(budgets).stream().filter(team::equals).count()).isEqualTo(1); // defined, never removed
        List<ConsumerRecord<byte[], byte[]>> requests = readAll(Topics.JOB_REQUESTS.name());
        assertThat(keys(requests).stream().filter(refusedJob::equals).count()).isEqualTo(1); // the retry only
        assertThat(keys(requests).stream().filter(running::equals).count()).isEqualTo(1); // no cancel
        List<ConsumerRecord<byte[], byte[]>> statuses = readAll(Topics.NODE_STATUS.name());
        assertThat(keys(statuses).stream().filter(node::equals).count()).isEqualTo(2); // registered, drained after
    }

    private Response submit(String id, String team, String cluster) {
        return Api.as("carol").contentType(ContentType.JSON).header("X-Allot-Submitter", "carol")
                .body("{\"id\":\"" + id + "\",\"budget\":\"" + team + "\",\"cluster\":\"" + cluster + "\",\"replicas\":1,"
                        + "\"gpusPerReplica\":1,\"minRuntimeSeconds\":60,\"resumable\":true,\"command\":[\"true\"]}")
                .when().post("/jobs");
    }

    private static Response put(RequestSpecification as, String path, String body) {
        return as.contentType(ContentType.JSON).body(body).when().put("/budgets/" + path);
    }

    private void registerNode(String cluster, String node) throws Exception {
        try (KafkaProducer<String, NodeStatus> producer = infra.clients().eventProducer("outage-test-" + UUID.randomUUID(),
                Map.of())) {
            producer.send(new ProducerRecord<>(Topics.NODE_STATUS.name(), node, NodeStatus.newBuilder()
                    .setEventId(UUID.randomUUID().toString()).setOccurredAt(Instant.now()).setNodeId(node)
                    .setPayload(new NodeRegistered(cluster, 8, "fake", 1L, "test-agent", null)).build())).get();
        }
        await().atMost(Duration.ofMinutes(2)).untilAsserted(() -> Api.asAdmin().when().get("/budgets").then()
                .body("clusters." + cluster, org.hamcrest.Matchers.notNullValue()));
    }

    /** Every record of the topic, read to its end. */
    private List<ConsumerRecord<byte[], byte[]>> readAll(String topic) {
        List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = infra.clients().consumer("outage-test-" + UUID.randomUUID(),
                Map.of())) {
            var partitions = consumer.partitionsFor(topic).stream()
                    .map(p -> new org.apache.kafka.common.TopicPartition(topic, p.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            var ends = consumer.endOffsets(partitions);
            await().atMost(Duration.ofMinutes(1)).until(() -> {
                consumer.poll(Duration.ofMillis(200)).forEach(records::add);
                return partitions.stream().allMatch(p -> consumer.position(p) >= ends.get(p));
            });
        }
        return records;
    }

    private static List<String> keys(List<ConsumerRecord<byte[], byte[]>> records) {
        return records.stream().map(r -> r.key() == null ? null : new String(r.key())).toList();
    }

    private static String load() {
        try {
            return java.nio.file.Files.readString(java.nio.file.Path.of("/proc/loadavg")).strip();
        } catch (Exception e) {
            return "unknown";
        }
    }
}
