package dev.allot.budget;

import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;

import dev.allot.schemas.ChargeMode;
import dev.allot.schemas.JobAccepted;
import dev.allot.schemas.JobEvent;
import dev.allot.schemas.JobStarted;
import dev.allot.schemas.JobState;
import dev.allot.schemas.catalogue.Topics;
import dev.allot.testsupport.AllotInfraTestResource;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** GET /jobs/{id}/history: the job's events in order; GET /jobs?submitter= lists one person's jobs. */
@QuarkusTest
@QuarkusTestResource(value = AllotInfraTestResource.class, restrictToAnnotatedClass = false)
class JobHistoryApiTest {

    @Test
    void givenAJobTheSchedulerAndAnAgentReported_whenItsHistoryIsRead_thenEveryEventIsThereInOrder() {
        String org = TestLog.uniquePrefix();
        String team = org + "/t";
        BudgetApiTest.put(org, "{\"share\":1}", 200);
        BudgetApiTest.put(team, "{\"share\":1}", 200);
        Api.nodeOf("local");
        String id = Api.as("erin", dev.allot.testsupport.TestTokens.ADMIN_GROUP).contentType(ContentType.JSON)
                .body("{\"budget\":\"" + team + "\",\"cluster\":\"local\",\"replicas\":1,\"gpusPerReplica\":1,"
                        + "\"minRuntimeSeconds\":0,\"command\":[\"true\"]}")
                .when().post("/jobs").then().statusCode(202).extract().path("id");
        Instant t0 = Instant.now().truncatedTo(ChronoUnit.MILLIS).plusSeconds(1);
        // written in the reverse order of when they happened: history orders by time
        event(id, null, t0.plusMillis(20), new JobStarted("local-node-1", 1L, 0, 42L));
        event(id, JobState.WAITING, t0, JobAccepted.newBuilder().setBudget(team).setCluster("local").setChargeMode(ChargeMode.UNALLOCATED).setQueuedAt(t0).build());

        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> Api.asAdmin().when().get("/jobs/" + id + "/history")
                .then().statusCode(200)
                .body("id", equalTo(id)).body("count", equalTo(3))
                .body("events.type", equalTo(List.of("JobSubmitted", "JobAccepted", "JobStarted")))
                .body("events[1].stateAfter", equalTo("WAITING"))
                .body("events[2].details.nodeId", equalTo("local-node-1")));
        Api.asAdmin().queryParam("submitter", "erin").queryParam("budget", team).when().get("/jobs").then()
                .body("jobs.id", equalTo(List.of(id))).body("jobs[0].submitter", equalTo("erin"));
        Api.asAdmin().queryParam("submitter", "someone-else").queryParam("budget", team).when().get("/jobs").then()
                .body("count", equalTo(0));
        Api.asAdmin().when().get("/jobs/" + UUID.randomUUID() + "/history").then().statusCode(404).body("field", equalTo("id"));
    }

    private static void event(String jobId, JobState stateAfter, Instant at, Object payload) {
        TestLog.publish(Topics.JOB_EVENTS, jobId, JobEvent.newBuilder().setEventId(UUID.randomUUID().toString())
                .setOccurredAt(at).setJobId(jobId).setStateAfter(stateAfter).setPayload(payload).build());
    }
}
