package dev.allot.budget;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;

import com.sun.net.httpserver.HttpServer;
import dev.allot.schemas.ChargeMode;
import dev.allot.schemas.GpuAssignment;
import dev.allot.schemas.JobEvent;
import dev.allot.schemas.JobPlaced;
import dev.allot.schemas.JobState;
import dev.allot.schemas.NodeRegistered;
import dev.allot.schemas.NodeStatus;
import dev.allot.schemas.catalogue.Topics;
import dev.allot.testsupport.AllotInfraTestResource;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * GET /jobs/{id}/logs reads the output from the node agent with the agent API secret (the file both read):
 * an agent endpoint that answers only that credential, as the real agent does, and an agent that refuses it.
 */
@QuarkusTest
@QuarkusTestResource(value = AllotInfraTestResource.class, restrictToAnnotatedClass = false)
class JobOutputCredentialTest {

    /** The test profile's allot.agent-api.secret-file. */
    static final Path SECRET_FILE = Path.of("target/agent-auth/agent-api-secret");

    @Test
    void givenAnAgentThatWantsTheSecret_whenAUserReadsLogs_thenTheServicePresentsIt_andARefusalIs502() throws Exception {
        String secret = UUID.randomUUID() + "-" + UUID.randomUUID();
        Files.createDirectories(SECRET_FILE.getParent());
        Files.writeString(SECRET_FILE, secret + "\n");
        List<String> seen = new CopyOnWriteArrayList<>();
        HttpServer agent = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        agent.createContext("/", exchange -> {
            String auth = exchange.getRequestHeaders().getFirst("Authorization");
            seen.add(String.valueOf(auth));
            boolean ok = ("Bearer " + secret).equals(auth);
            byte[] body = (ok ? "{\"offset\":0,\"nextOffset\":3,\"size\":3,\"more\":false,\"text\":\"hi\\n\"}"
                    : "{\"status\":401}").getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(ok ? 200 : 401, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        agent.start();
        try {
            String org = TestLog.uniquePrefix();
            String team = org + "/team";
            BudgetApiTest.put(org, "{\"share\":1}", 200);
            BudgetApiTest.put(team, "{\"share\":1,\"members\":[\"erin\"]}", 200);
            Api.nodeOf("local");
            String node = org + "-node";
            TestLog.publish(Topics.NODE_STATUS, node, NodeStatus.newBuilder().setEventId(UUID.randomUUID().toString())
                    .setOccurredAt(Instant.now()).setNodeId(node).setPayload(new NodeRegistered("local", 8, "fake", 7L,
                            "agent-x", "http://127.0.0.1:" + agent.getAddress().getPort())).build());
            String id = Api.as("erin").contentType(ContentType.JSON).body("{\"budget\":\"" + team + "\",\"cluster\":"
                            + "\"local\",\"replicas\":1,\"gpusPerReplica\":1,\"minRuntimeSeconds\":0,\"command\":[\"true\"]}")
                    .when().post("/jobs").then().statusCode(202).extract().path("id");
            TestLog.publish(Topics.JOB_EVENTS, id, JobEvent.newBuilder().setEventId(UUID.randomUUID().toString())
                    .setOccurredAt(Instant.now()).setJobId(id).setStateAfter(JobState.RUNNING)
                    .setPayload(JobPlaced.newBuilder().setCluster("local").setBudget(team)
                            .setAssignments(List.of(new GpuAssignment(node, 7L, 0, List.of(0))))
                            .setChargeMode(ChargeMode.UNALLOCATED).setProtectedUntil(Instant.now()).setAttempt(1)
                            .setExplanation("test").build())
                    .build());

            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> Api.as("erin").when().get("/jobs/" + id + "/logs")
                    .then().statusCode(200).body("text", equalTo("hi\n")).body("nodeId", equalTo(node)));
            assertThat(seen).contains("Bearer " + secret);

            // a rotated secret on this side only: the agent refuses it, the user gets a 502 saying why
            Files.writeString(SECRET_FILE, "rotated-" + secret + "\n");
            Files.setLastModifiedTime(SECRET_FILE, java.nio.file.attribute.FileTime.from(Instant.now().plusSeconds(5)));
            Api.as("erin").when().get("/jobs/" + id + "/logs").then().statusCode(502)
                    .body("message", containsString("refused this service's credential"));
        } finally {
            agent.stop(0);
        }
    }
}
