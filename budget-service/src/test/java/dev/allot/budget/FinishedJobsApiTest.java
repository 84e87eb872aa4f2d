package dev.allot.budget;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;

import dev.allot.schemas.ChargeMode;
import dev.allot.schemas.GpuAssignment;
import dev.allot.schemas.JobAccepted;
import dev.allot.schemas.JobCompleted;
import dev.allot.schemas.JobEvent;
import dev.allot.schemas.JobExited;
import dev.allot.schemas.JobPlaced;
import dev.allot.schemas.JobStarted;
import dev.allot.schemas.JobState;
import dev.allot.schemas.catalogue.Topics;
import dev.allot.testsupport.AllotInfraTestResource;
import dev.allot.testsupport.PrometheusText;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import io.restassured.http.ContentType;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * A finished job kept as its facts' bytes (the tests keep 2 finished jobs whole, {@code %test.allot.budget.jobs-kept-whole})
 * reads as it did whole: its view, its history and its list line, read back through the registry's reader (its events
 * came from the log) and this service's own encoding (its submission came through its POST).
 */
@QuarkusTest
@QuarkusTestResource(value = AllotInfraTestResource.class, restrictToAnnotatedClass = false)
class FinishedJobsApiTest {

    @Test
    void givenFourJobsThatFinished_whenTheFirstIsRead_thenItReadsAsItDidBeforeItWasKeptAsFacts() {
        String org = TestLog.uniquePrefix();
        String team = org + "/t";
        BudgetApiTest.put(org, "{\"share\":1}", 200);
        BudgetApiTest.put(team, "{\"share\":1}", 200);
        Api.nodeOf("local");
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            ids.add(Api.as("frank", dev.allot.testsupport.TestTokens.ADMIN_GROUP).contentType(ContentType.JSON)
                    .body("{\"budget\":\"" + team + "\",\"cluster\":\"local\",\"replicas\":1,\"gpusPerReplica\":2,"
                            + "\"minRuntimeSeconds\":60,\"resumable\":true,\"command\":[\"sleep\",\"" + i + "\"]}")
                    .when().post("/jobs").then().statusCode(202).extract().path("id"));
        }
        String first = ids.get(0);
        Instant t0 = Instant.now().truncatedTo(ChronoUnit.MILLIS);
        runToCompletion(first, team, t0);
        String whileWhole = view(first);
        String historyWhileWhole = history(first);
        assertThat(whileWhole).contains("\"state\":\"COMPLETED\"").contains("local-node-7");
        double asFactsBefore = finishedAsFacts();

        for (String later : ids.subList(1, 4)) {
            runToCompletion(later, team, t0.plusSeconds(10));
        }

        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(finishedAsFacts())
                .as("the first job and at least the next one kept as facts").isGreaterThanOrEqualTo(asFactsBefore + 2));
        assertThat(view(first)).isEqualTo(whileWhole);
        assertThat(history(first)).isEqualTo(historyWhileWhole);
        Api.asAdmin().when().get("/jobs/" + first + "/history").then()
                .body("events.type", equalTo(List.of("JobSubmitted", "JobAccepted", "JobPlaced", "JobStarted",
                        "JobExited", "JobCompleted")))
                .body("events[0].details.command", equalTo(List.of("sleep", "0")))
                .body("events[2].details.assignments[0].nodeId", equalTo("local-node-7"));
        List<String> all = Api.asAdmin().queryParam("budget", team).queryParam("state", "COMPLETED").when().get("/jobs")
                .then().body("count", equalTo(4)).body("jobs.submitter", equalTo(List.of("frank", "frank", "frank", "frank")))
                .extract().path("jobs.submittedAt");
        assertThat(all.stream().map(Instant::parse).toList()).as("newest submission first")
                .isSortedAccordingTo(java.util.Comparator.reverseOrder());
        List<String> newestTwo = Api.asAdmin().queryParam("budget", team).queryParam("limit", 2).when().get("/jobs")
                .then().body("count", equalTo(4)).extract().path("jobs.id");
        List<String> allIds = Api.asAdmin().queryParam("budget", team).when().get("/jobs").then().extract().path("jobs.id");
        assertThat(newestTwo).as("a page is the head of the whole list").isEqualTo(allIds.subList(0, 2));
        assertThat(allIds).containsExactlyInAnyOrderElementsOf(ids);
    }

    private static void runToCompletion(String id, String team, Instant at) {
        event(id, JobState.WAITING, at, JobAccepted.newBuilder().setBudget(team).setCluster("local")
                .setChargeMode(ChargeMode.ALLOCATED).setQueuedAt(at).setReplicas(1).setGpusPerReplica(2)
                .setMinRuntimeSeconds(60).setResumable(true).setSubmitter("frank").build());
        event(id, JobState.RUNNING, at.plusMillis(5), JobPlaced.newBuilder().setCluster("local").setBudget(team)
                .setAssignments(List.of(GpuAssignment.newBuilder().setNodeId("local-node-7").setNodeEpoch(1)
                        .setReplicaIndex(0).setGpuIndices(List.of(2, 3)).build()))
                .setChargeMode(ChargeMode.ALLOCATED).setProtectedUntil(at.plusSeconds(60)).setAttempt(1)
                .setExplanation("free GPUs").setDebugLane(false).build());
        event(id, null, at.plusMillis(9), new JobStarted("local-node-7", 1L, 0, 4242L));
        event(id, null, at.plusMillis(900), new JobExited("local-node-7", 0, 0, false));
        event(id, JobState.COMPLETED, at.plusMillis(901), new JobCompleted(1.8));
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(view(id)).contains("\"state\":\"COMPLETED\""));
    }

    private static String view(String id) {
        return Api.asAdmin().when().get("/jobs/" + id).then().statusCode(200).extract().asString();
    }

    private static String history(String id) {
        return Api.asAdmin().when().get("/jobs/" + id + "/history").then().statusCode(200).extract().asString();
    }

    private static double finishedAsFacts() {
        return PrometheusText.value(RestAssured.when().get("/q/metrics").then().statusCode(200).extract().asString(),
                "allot_budget_jobs_finished_as_facts");
    }

    private static void event(String jobId, JobState stateAfter, Instant at, Object payload) {
        TestLog.publish(Topics.JOB_EVENTS, jobId, JobEvent.newBuilder().setEventId(UUID.randomUUID().toString())
                .setOccurredAt(at).setJobId(jobId).setStateAfter(stateAfter).setPayload(payload).build());
    }
}
