package dev.allot.nodeagent;

import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;

import dev.allot.schemas.NodeCommand;
import dev.allot.schemas.catalogue.Topics;
import dev.allot.testsupport.AllotInfraTestResource;
import dev.allot.testsupport.AllotInfrastructure;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;

/** GET /jobs/{id}/log: a real replica's output, from an offset, cut only between whole UTF-8 characters. */
@QuarkusTest
@QuarkusTestResource(value = AllotInfraTestResource.class, restrictToAnnotatedClass = false)
class LogResourceTest {

    @Inject
    AgentRuntime runtime;

    @Test
    void givenAJobThatPrinted_whenItsLogIsRead_thenTheTextComesFromTheOffsetInWholeCharacters() throws Exception {
        String job = "log-" + UUID.randomUUID();
        HostedNode node = runtime.agent().nodes().get(0);
        try (KafkaProducer<String, NodeCommand> producer = AllotInfrastructure.shared().producer()) {
            producer.send(new ProducerRecord<>(Topics.NODE_COMMANDS.name(), node.nodeId(),
                    NodeAgentTest.start(job, node.nodeId(), node.epoch(), List.of(0),
                            List.of("sh", "-c", "printf 'hello\\nw\\303\\266rld\\n'; echo oops >&2"), Map.of(), 0))).get();
        }

        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> AgentCredentials.asService().when().get("/jobs/" + job + "/log").then()
                .statusCode(200).body("text", equalTo("hello\nwörld\noops\n")).body("size", equalTo(18))
                .body("nextOffset", equalTo(18)).body("more", equalTo(false)));
        // 'w' and the first byte of 'ö': only 'w' is sent, the next read starts at the cut character
        AgentCredentials.asService().queryParam("offset", 6).queryParam("limit", 2).when().get("/jobs/" + job + "/log").then()
                .statusCode(200).body("text", equalTo("w")).body("nextOffset", equalTo(7)).body("more", equalTo(true));
        AgentCredentials.asService().queryParam("offset", 7).queryParam("limit", 2).when().get("/jobs/" + job + "/log").then()
                .body("text", equalTo("ö")).body("nextOffset", equalTo(9));
        AgentCredentials.asService().when().get("/jobs/no-such-job/log").then().statusCode(404).body("field", equalTo("id"));
        AgentCredentials.asService().queryParam("limit", 0).when().get("/jobs/" + job + "/log").then().statusCode(400)
                .body("field", equalTo("limit"));
    }
}
