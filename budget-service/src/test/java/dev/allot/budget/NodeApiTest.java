package dev.allot.budget;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;

import dev.allot.schemas.ChargeMode;
import dev.allot.schemas.GpuAssignment;
import dev.allot.schemas.JobEvent;
import dev.allot.schemas.JobPlaced;
import dev.allot.schemas.JobState;
import dev.allot.schemas.NodeDrainRequested;
import dev.allot.schemas.NodeDrained;
import dev.allot.schemas.NodeHeartbeat;
import dev.allot.schemas.NodeRegistered;
import dev.allot.schemas.NodeStatus;
import dev.allot.schemas.NodeUndrained;
import dev.allot.schemas.catalogue.Topics;
import dev.allot.testsupport.AllotInfraTestResource;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** GET /nodes from node-status and job placements; drain and undrain through the public API onto node-status. */
@QuarkusTest
@QuarkusTestResource(value = AllotInfraTestResource.class, restrictToAnnotatedClass = false)
class NodeApiTest {

    private String cluster;
    private String node;

    @BeforeEach
    void aRegisteredNode() {
        cluster = TestLog.uniquePrefix();
        node = cluster + "-node-1";
        status(node, new NodeRegistered(cluster, 8, "fake", 5L, "host:1", null));
        status(node, new NodeHeartbeat(cluster, 5L, List.of(), null));
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> Api.asAdmin().queryParam("cluster", cluster)
                .when().get("/nodes").then().statusCode(200).body("nodes.size()", equalTo(1)));
    }

    @Test
    void givenARunningJobOnTheNode_whenNodesAreListed_thenItsGpusAreUsedAndTheRestFree() {
        String job = cluster + "-job";
        TestLog.publish(Topics.JOB_EVENTS, job, JobEvent.newBuilder().setEventId(UUID.randomUUID().toString())
                .setOccurredAt(Instant.now()).setJobId(job).setStateAfter(JobState.RUNNING)
                .setPayload(JobPlaced.newBuilder().setCluster(cluster).setBudget("lab/a")
                        .setAssignments(List.of(new GpuAssignment(node, 5L, 0, List.of(0, 1, 2))))
                        .setChargeMode(ChargeMode.ALLOCATED).setProtectedUntil(Instant.now()).setAttempt(1)
                        .setExplanation("fits").build()).build());

        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> Api.asAdmin().when().get("/nodes/" + node).then()
                .statusCode(200)
                .body("cluster", equalTo(cluster)).body("gpus", equalTo(8))
                .body("usedGpus", equalTo(3)).body("freeGpus", equalTo(5))
                .body("jobs." + job, equalTo(3))
                .body("state", equalTo("UP")).body("lost", equalTo(false)));
    }

    @Test
    void givenANode_whenDrainedThroughTheApi_thenNodeDrainRequestedIsOnNodeStatusAndTheNodeShowsDraining() {
        Api.as("olga", dev.allot.testsupport.TestTokens.OPERATOR_GROUP).queryParam("reason", "MAINT-7").when().post("/nodes/" + node + "/drain")
                .then().statusCode(202)
                // read-your-writes: the answer already shows the drain
                .body("state", equalTo("DRAINING")).body("drain.requestedBy", equalTo("olga"))
                .body("drain.reason", equalTo("MAINT-7"));

        List<ConsumerRecord<String, NodeStatus>> log = TestLog.read(Topics.NODE_STATUS, node::equals,
                seen -> seen.stream().anyMatch(r -> r.value().getPayload() instanceof NodeDrainRequested));
        NodeDrainRequested drain = log.stream().map(r -> r.value().getPayload())
                .filter(NodeDrainRequested.class::isInstance).map(NodeDrainRequested.class::cast).findFirst().orElseThrow();
        assertThat(drain.getCluster()).isEqualTo(cluster);
        assertThat(drain.getRequestedBy()).isEqualTo("olga");
        assertThat(drain.getReason()).isEqualTo("MAINT-7");

        // the scheduler reports the node empty
        status(node, new NodeDrained(cluster));
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> Api.asAdmin().when().get("/nodes/" + node).then()
                .body("state", equalTo("DRAINED")));

        Api.as("olga", dev.allot.testsupport.TestTokens.OPERATOR_GROUP).when().post("/nodes/" + node + "/undrain").then().statusCode(202)
                .body("state", equalTo("UP")).body("drain", equalTo(null));
        assertThat(TestLog.read(Topics.NODE_STATUS, node::equals,
                seen -> seen.stream().anyMatch(r -> r.value().getPayload() instanceof NodeUndrained))).isNotEmpty();
    }

    @Test
    void givenNodesSilentForAThirdOfLostAfterAndLonger_whenListed_thenUnreachableAndLost() {
        // lost-after 30 s: silent 12 s is unreachable (no new work there), silent 60 s is lost
        String silent = cluster + "-node-silent";
        String gone = cluster + "-node-gone";
        Instant now = Instant.now();
        status(silent, new NodeRegistered(cluster, 8, "fake", 1L, "host:2", null), now.minusSeconds(13));
        status(silent, new NodeHeartbeat(cluster, 1L, List.of(), null), now.minusSeconds(12));
        status(gone, new NodeRegistered(cluster, 8, "fake", 1L, "host:3", null), now.minusSeconds(60));

        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> Api.asAdmin().queryParam("cluster", cluster)
                .when().get("/nodes").then().statusCode(200).body("nodes.size()", equalTo(3))
                .body("nodes.find { it.nodeId == '" + node + "' }.state", equalTo("UP"))
                .body("nodes.find { it.nodeId == '" + node + "' }.unreachable", equalTo(false))
                .body("nodes.find { it.nodeId == '" + silent + "' }.state", equalTo("UNREACHABLE"))
                .body("nodes.find { it.nodeId == '" + silent + "' }.unreachable", equalTo(true))
                .body("nodes.find { it.nodeId == '" + silent + "' }.lost", equalTo(false))
                .body("nodes.find { it.nodeId == '" + gone + "' }.state", equalTo("LOST"))
                .body("nodes.find { it.nodeId == '" + gone + "' }.unreachable", equalTo(false)));
    }

    @Test
    void givenAnUnknownNode_whenDrained_then404NamingTheFieldAndNothingWritten() {
        String unknown = cluster + "-nowhere";
        Api.asAdmin().when().post("/nodes/" + unknown + "/drain").then().statusCode(404).body("field", equalTo("id"));
        Api.asAdmin().when().get("/nodes/" + unknown).then().statusCode(404);
        // a record written after the refusal arrives alone: the refusal wrote nothing before it
        status(unknown, new NodeHeartbeat(cluster, 1L, List.of(), null));
        List<ConsumerRecord<String, NodeStatus>> log = TestLog.read(Topics.NODE_STATUS, unknown::equals,
                seen -> !seen.isEmpty());
        assertThat(log).hasSize(1);
        assertThat(log.get(0).value().getPayload()).isInstanceOf(NodeHeartbeat.class);
    }

    private static void status(String nodeId, Object payload) {
        status(nodeId, payload, Instant.now());
    }

    private static void status(String nodeId, Object payload, Instant at) {
        TestLog.publish(Topics.NODE_STATUS, nodeId, NodeStatus.newBuilder().setEventId(UUID.randomUUID().toString())
                .setOccurredAt(at).setNodeId(nodeId).setPayload(payload).build());
    }
}
