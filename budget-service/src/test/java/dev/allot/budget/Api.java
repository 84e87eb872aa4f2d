package dev.allot.budget;

import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;

import dev.allot.schemas.NodeRegistered;
import dev.allot.schemas.NodeStatus;
import dev.allot.schemas.catalogue.Topics;
import dev.allot.testsupport.TestTokens;
import io.restassured.specification.RequestSpecification;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import org.hamcrest.Matchers;

/** Requests to the service under test as someone: test-support's TestTokens, in RestAssured's words. */
public final class Api {

    private Api() {
    }

    public static RequestSpecification asAdmin() {
        return given().auth().oauth2(TestTokens.admin());
    }

    public static RequestSpecification as(String user, String... groups) {
        return given().auth().oauth2(TestTokens.user(user, groups));
    }

    /** Jobs are refused for a cluster no node is known of: registers one (8 GPUs) and waits until it shows. */
    public static void nodeOf(String cluster) {
        String node = cluster + "-node-" + UUID.randomUUID().toString().substring(0, 6);
        TestLog.publish(Topics.NODE_STATUS, node, NodeStatus.newBuilder().setEventId(UUID.randomUUID().toString())
                .setOccurredAt(Instant.now()).setNodeId(node)
                .setPayload(new NodeRegistered(cluster, 8, "fake", 1L, "test-agent", null)).build());
        // generous: the first authenticated request of a JVM loads the key and warms the JWT code up
        await().atMost(Duration.ofMinutes(2)).untilAsserted(() -> asAdmin().when().get("/budgets").then()
                .body("clusters." + cluster, Matchers.notNullValue()));
    }
}
