package dev.allot.budget;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.emptyOrNullString;

import dev.allot.schemas.AccountRatio;
import dev.allot.schemas.ChargeMode;
import dev.allot.schemas.GpuAssignment;
import dev.allot.schemas.JobAccepted;
import dev.allot.schemas.JobCancelRequested;
import dev.allot.schemas.JobCompleted;
import dev.allot.schemas.JobEvent;
import dev.allot.schemas.JobPlaced;
import dev.allot.schemas.JobPreempted;
import dev.allot.schemas.JobRequest;
import dev.allot.schemas.JobRequeued;
import dev.allot.schemas.StartEstimateBasis;
import dev.allot.schemas.JobStarted;
import dev.allot.schemas.JobState;
import dev.allot.schemas.JobSubmitted;
import dev.allot.schemas.PreemptionReason;
import dev.allot.schemas.QueueEntry;
import dev.allot.schemas.QueueSnapshot;
import dev.allot.schemas.catalogue.Topics;
import dev.allot.testsupport.AllotInfraTestResource;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.path.json.JsonPath;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

@QuarkusTest
@QuarkusTestResource(value = AllotInfraTestResource.class, restrictToAnnotatedClass = false)
class JobApiTest {

    private String team;

    @BeforeEach
    void defineATeam() {
        String org = TestLog.uniquePrefix();
        team = org + "/team-a";
        // dave owns the org (may cancel any job beneath it), carol is a member of the team (submits to it)
        BudgetApiTest.put(org, "{\"share\":1,\"owners\":[\"dave\"]}", 200);
        BudgetApiTest.put(team, "{\"share\":1,\"members\":[\"carol\"]}", 200);
        if (!localNodeKnown) {
            Api.nodeOf("local");
            localNodeKnown = true;
        }
    }

    private static boolean localNodeKnown;

    private String job(String extra) {
        return "{\"budget\":\"" + team + "\",\"cluster\":\"local\",\"replicas\":1,\"gpusPerReplica\":2,"
                + "\"minRuntimeSeconds\":60,\"resumable\":true,\"command\":[\"sleep\",\"3\"]" + extra + "}";
    }

    private static String submit(String body) {
        return Api.as("carol").contentType(ContentType.JSON).header("X-Allot-Submitter", "carol").body(body)
                .when().post("/jobs")
                .then().statusCode(202).body("id", not(emptyOrNullString()))
                .extract().path("id");
    }

    @Test
    void givenAValidJob_whenItIsPosted_thenJobSubmittedIsOnJobRequestsKeyedById_andTheJobIsWaiting() {
        String id = submit(job(",\"priority\":5,\"env\":{\"A\":\"1\"},\"expectedDurationSeconds\":30,"
                + "\"checkpointGraceSeconds\":120"));

        List<ConsumerRecord<String, JobRequest>> log = TestLog.read(Topics.JOB_REQUESTS, id::equals,
                seen -> !seen.isEmpty());
        JobSubmitted submitted = (JobSubmitted) log.get(0).value().getPayload();
        assertThat(submitted.getJobId()).isEqualTo(id);
        assertThat(submitted.getBudget()).isEqualTo(team);
        assertThat(submitted.getCluster()).isEqualTo("local");
        assertThat(submitted.getReplicas()).isEqualTo(1);
        assertThat(submitted.getGpusPerReplica()).isEqualTo(2);
        assertThat(submitted.getMinRuntimeSeconds()).isEqualTo(60);
        assertThat(submitted.getResumable()).isTrue();
        assertThat(submitted.getPriority()).isEqualTo(5);
        assertThat(submitted.getCommand()).containsExactly("sleep", "3");
        assertThat(submitted.getEnv()).containsEntry("A", "1");
        assertThat(submitted.getExpectedDurationSeconds()).isEqualTo(30L);
        assertThat(submitted.getCheckpointGraceSeconds()).isEqualTo(120);
        assertThat(submitted.getSubmitter()).isEqualTo("carol");

        Api.asAdmin().when().get("/jobs/" + id).then().statusCode(200)
                .body("state", equalTo("WAITING"))
                .body("seenByScheduler", equalTo(false))
                .body("budget", equalTo(team))
                .body("gpus", equalTo(2))
                .body("checkpointGraceSeconds", equalTo(120))
                .body("history[0].type", equalTo("JobSubmitted"));
    }

    @Test
    void givenAClientChosenId_whenItIsPostedTwice_thenTheSecondIsAConflictNamingTheId() {
        String id = "job-" + UUID.randomUUID();
        assertThat(submit(job(",\"id\":\"" + id + "\""))).isEqualTo(id);

        Api.asAdmin().contentType(ContentType.JSON).body(job(",\"id\":\"" + id + "\"")).when().post("/jobs")
                .then().statusCode(409).body("field", equalTo("id"));
    }

    @Test
    void givenTheSchedulersQueueSnapshot_whenAJobIsAsked_thenItsPositionReasonAndExpectedStartAreInTheAnswer() {
        String cluster = TestLog.uniquePrefix();
        Api.nodeOf(cluster);
        String waiting = submit(job("").replace("\"cluster\":\"local\"", "\"cluster\":\"" + cluster + "\""));
        String far = submit(job("").replace("\"cluster\":\"local\"", "\"cluster\":\"" + cluster + "\""));
        String unlisted = submit(job("").replace("\"cluster\":\"local\"", "\"cluster\":\"" + cluster + "\""));
        // the scheduler has published the queue: the first job third in line, expected in 2 h on default run
        // times; the second beyond the 7-day horizon; the third past the snapshot's end
        Instant at = Instant.now().truncatedTo(java.time.temporal.ChronoUnit.MILLIS);
        Instant expected = at.plusSeconds(7200);
        TestLog.publish(Topics.QUEUE_STATUS, cluster, QueueSnapshot.newBuilder().setCluster(cluster)
                .setAt(at).setEstimatedAt(at.minusSeconds(3)).setEstimateHorizonSeconds(7 * 86_400L)
                .setEntries(List.of(QueueEntry.newBuilder().setJobId(waiting).setAccount(team)
                        .setState(JobState.WAITING).setPosition(3).setGpus(2)
                        .setReason("position 3: lab/team-b ranks ahead (ratio 0.1)")
                        .setAccountsAhead(List.of(new AccountRatio("lab/team-b", 10.0, 100.0, 0.1)))
                        .setProtectedUntil(null).setExpectedStart(expected)
                        .setExpectedStartBasis(StartEstimateBasis.DEFAULT).build(),
                        QueueEntry.newBuilder().setJobId(far).setAccount(team)
                        .setState(JobState.WAITING).setPosition(4).setGpus(2).setReason("position 4")
                        .setAccountsAhead(List.of()).setProtectedUntil(null).setExpectedStart(null)
                        .setExpectedStartBasis(StartEstimateBasis.BEYOND_HORIZON).build()))
                .build());

        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> Api.asAdmin().when().get("/jobs/" + waiting).then()
                .statusCode(200)
                .body("queue.position", equalTo(3))
                .body("queue.reason", equalTo("position 3: lab/team-b ranks ahead (ratio 0.1)"))
                .body("queue.accountsAhead[0].account", equalTo("lab/team-b"))
                .body("queue.expectedStart", equalTo(expected.toString()))
                .body("expectedStart.at", equalTo(expected.toString()))
                .body("expectedStart.basis", equalTo("DEFAULT"))
                .body("expectedStart.beyondHorizon", equalTo(false))
                .body("expectedStart.lowConfidence", equalTo(true))
                .body("expectedStart.note", org.hamcrest.Matchers.startsWith("low confidence: "))
                .body("expectedStart.horizonSeconds", equalTo(604_800))
                .body("expectedStart.estimatedAt", equalTo(at.minusSeconds(3).toString())));
        Api.asAdmin().when().get("/jobs/" + far).then().statusCode(200)
                .body("queue.position", equalTo(4))
                .body("expectedStart.at", org.hamcrest.Matchers.nullValue())
                .body("expectedStart.basis", equalTo("BEYOND_HORIZON"))
                .body("expectedStart.beyondHorizon", equalTo(true))
                .body("expectedStart.lowConfidence", equalTo(false))
                .body("expectedStart.note", equalTo("not expected to start within the scheduler's horizon of 7 days"
                        + " as the queue stands"));
        Api.asAdmin().when().get("/jobs/" + unlisted).then().statusCode(200).body("state", equalTo("WAITING"))
                .body("queue", org.hamcrest.Matchers.nullValue())
                .body("expectedStart", org.hamcrest.Matchers.nullValue());
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "zero replicas         | \"replicas\":1         | \"replicas\":0          | 400 | replicas",
            "zero gpus             | \"gpusPerReplica\":2   | \"gpusPerReplica\":0    | 400 | gpusPerReplica",
            "fractional gpus       | \"gpusPerReplica\":2   | \"gpusPerReplica\":1.5  | 400 | gpusPerReplica",
            "negative min runtime  | \"minRuntimeSeconds\":60 | \"minRuntimeSeconds\":-1 | 400 | minRuntimeSeconds",
            "min runtime over 8 h  | \"minRuntimeSeconds\":60 | \"minRuntimeSeconds\":28801 | 400 | minRuntimeSeconds",
            "missing min runtime   | \"minRuntimeSeconds\":60, |                      | 400 | minRuntimeSeconds",
            "empty command         | [\"sleep\",\"3\"]       | []                      | 400 | command",
            "command not strings   | [\"sleep\",\"3\"]       | [1,2]                   | 400 | command",
            "bad budget syntax     | \"budget\":\"          | \"budget\":\"/x/        | 400 | budget",
            "resumable not boolean | \"resumable\":true     | \"resumable\":\"yes\"   | 400 | resumable",
            "bad cluster           | \"cluster\":\"local\"  | \"cluster\":\"lo cal\"  | 400 | cluster",
            "grace over 300 s      | \"resumable\":true     | \"resumable\":true,\"checkpointGraceSeconds\":301 | 400 | checkpointGraceSeconds",
            "negative grace        | \"resumable\":true     | \"resumable\":true,\"checkpointGraceSeconds\":-1 | 400 | checkpointGraceSeconds",
            "fractional grace      | \"resumable\":true     | \"resumable\":true,\"checkpointGraceSeconds\":1.5 | 400 | checkpointGraceSeconds",
    })
    void givenAMalformedJob_whenItIsPosted_thenA4xxNamesTheField(String name, String from, String to, int status,
                                                                  String field) {
        String body = job("").replace(from.strip(), to == null ? "" : to.strip());

        Api.asAdmin().contentType(ContentType.JSON).body(body).when().post("/jobs")
                .then().statusCode(status).body("field", equalTo(field));
    }

    @Test
    void givenABudgetTheTreeDoesNotHave_whenAJobIsPosted_then422NamingTheBudget() {
        Api.asAdmin().contentType(ContentType.JSON).body(job("").replace(team, team + "-ghost")).when().post("/jobs")
                .then().statusCode(422).body("field", equalTo("budget"));
        // an inner account is not a leaf: jobs are charged to leaves
        Api.asAdmin().contentType(ContentType.JSON).body(job("").replace(team, team.substring(0, team.indexOf('/'))))
                .when().post("/jobs")
                .then().statusCode(422).body("field", equalTo("budget"));
    }

    @Test
    void givenASubmittedJob_whenTheSchedulerAndAgentReport_thenGetFollowsStateAndHistory() {
        String id = submit(job(""));
        Instant t0 = Instant.now().truncatedTo(java.time.temporal.ChronoUnit.MILLIS); // timestamp-millis on the wire
        publish(id, JobState.WAITING, t0, JobAccepted.newBuilder().setBudget(team).setCluster("local")
                .setChargeMode(ChargeMode.ALLOCATED).setQueuedAt(t0).build());
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> Api.asAdmin().when().get("/jobs/" + id).then()
                .body("seenByScheduler", equalTo(true)).body("state", equalTo("WAITING")));

        Instant protectedUntil = t0.plusSeconds(60);
        publish(id, JobState.RUNNING, t0.plusMillis(10), JobPlaced.newBuilder().setCluster("local").setBudget(team)
                .setAssignments(List.of(new GpuAssignment("node-1", 3L, 0, List.of(2, 3))))
                .setChargeMode(ChargeMode.ALLOCATED).setProtectedUntil(protectedUntil).setAttempt(1)
                .setExplanation("rank 1").build());
        publish(id, null, t0.plusMillis(20), new JobStarted("node-1", 3L, 0, 4242L));
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> Api.asAdmin().when().get("/jobs/" + id).then()
                .body("state", equalTo("RUNNING"))
                .body("placement.assignments[0].nodeId", equalTo("node-1"))
                .body("placement.assignments[0].gpuIndices", equalTo(List.of(2, 3)))
                .body("protectedUntil", equalTo(protectedUntil.toString()))
                .body("history.size()", equalTo(4)));

        publish(id, JobState.WAITING, t0.plusMillis(30), JobPreempted.newBuilder()
                .setReason(PreemptionReason.FAIR_SHARE).setExplanation("team-b is under-served")
                .setPreemptorJobId("job-b").setPreemptorAccount("lab/team-b")
                .setRatios(List.of(new AccountRatio("lab/team-b", 10.0, 100.0, 0.1))).setRequeue(true).build());
        publish(id, JobState.WAITING, t0.plusMillis(40), new JobRequeued(t0, 1, "preempted"));
        publish(id, JobState.COMPLETED, t0.plusMillis(50), new JobCompleted(120.0));

        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> Api.asAdmin().when().get("/jobs/" + id).then()
                .body("state", equalTo("COMPLETED"))
                .body("protectedUntil", equalTo(null))
                .body("preemptions[0].preemptorJobId", equalTo("job-b"))
                .body("preemptions[0].preemptorAccount", equalTo("lab/team-b"))
                .body("preemptions[0].reason", equalTo("FAIR_SHARE"))
                .body("preemptions[0].ratios[0].ratio", equalTo(0.1f))
                .body("history.type", equalTo(List.of("JobSubmitted", "JobAccepted", "JobPlaced", "JobStarted",
                        "JobPreempted", "JobRequeued", "JobCompleted")))
                .body("history[6].stateAfter", equalTo("COMPLETED"))
                .body("history[3].stateAfter", equalTo(null)));
    }

    @Test
    void givenASubmissionTheSchedulerRejects_whenItIsRead_thenItIsRejectedWithTheReasonAndField() {
        String id = submit(job(""));

        publish(id, JobState.REJECTED, Instant.now(), new dev.allot.schemas.JobRejected(
                "8 GPUs per replica but the largest node of local has 4", "gpusPerReplica"));

        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> Api.asAdmin().when().get("/jobs/" + id).then()
                .body("state", equalTo("REJECTED"))
                .body("rejection.field", equalTo("gpusPerReplica"))
                .body("rejection.reason", equalTo("8 GPUs per replica but the largest node of local has 4")));
        Api.asAdmin().when().delete("/jobs/" + id).then().statusCode(409).body("field", equalTo("id"));
    }

    @Test
    void givenJobsOfATeam_whenTheyAreListed_thenTheFiltersApply() {
        String first = submit(job(""));
        String second = submit(job(""));
        publish(second, JobState.RUNNING, Instant.now(), new JobStarted("node-1", 1L, 0, null));

        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> Api.asAdmin().queryParam("budget", team)
                .when().get("/jobs").then().statusCode(200)
                .body("count", equalTo(2))
                .body("jobs.id", org.hamcrest.Matchers.containsInAnyOrder(first, second))
                .body("jobs.find { it.id == '" + second + "' }.state", equalTo("RUNNING")));
        Api.asAdmin().queryParam("budget", team).queryParam("state", "WAITING").when().get("/jobs").then()
                .body("jobs.id", equalTo(List.of(first)));
        Api.asAdmin().queryParam("state", "SLEEPING").when().get("/jobs").then().statusCode(400)
                .body("field", equalTo("state"));
    }

    @Test
    void givenAnUnknownJob_whenItIsRead_then404() {
        Api.asAdmin().when().get("/jobs/" + UUID.randomUUID()).then().statusCode(404).body("field", equalTo("id"));
    }

    @Test
    void givenAWaitingJob_whenItIsDeleted_thenJobCancelRequestedIsOnJobRequests() {
        String id = submit(job(""));

        Api.as("dave").when().delete("/jobs/" + id + "?reason=typo")
                .then().statusCode(202).body("cancelRequested", equalTo(true));

        List<ConsumerRecord<String, JobRequest>> log = TestLog.read(Topics.JOB_REQUESTS, id::equals,
                seen -> seen.size() >= 2);
        JobCancelRequested cancel = (JobCancelRequested) log.get(1).value().getPayload();
        assertThat(cancel.getJobId()).isEqualTo(id);
        assertThat(cancel.getRequestedBy()).isEqualTo("dave");
        assertThat(cancel.getReason()).isEqualTo("typo");
        JsonPath view = Api.asAdmin().when().get("/jobs/" + id).then().statusCode(200).extract().jsonPath();
        assertThat(view.getBoolean("cancelRequested")).isTrue();
    }

    @Test
    void givenAJobKnownOnlyFromJobEvents_whenAcceptedThenCancelled_thenGetShowsItsShapeAndWhoCancelledIt() {
        // given a job whose submission is not in this log (say, past retention): only the scheduler's events
        String id = "only-events-" + UUID.randomUUID();
        Instant t0 = Instant.now().truncatedTo(java.time.temporal.ChronoUnit.MILLIS);
        publish(id, JobState.WAITING, t0, JobAccepted.newBuilder().setBudget(team).setCluster("local")
                .setChargeMode(ChargeMode.ALLOCATED).setQueuedAt(t0).setReplicas(2).setGpusPerReplica(4)
                .setMinRuntimeSeconds(600).setResumable(true).setPriority(3).setSubmitter("erin").build());
        // when the scheduler cancels it
        publish(id, JobState.CANCELLED, t0.plusMillis(10), new dev.allot.schemas.JobCancelled("dave", "typo", false));
        // then the view has the request's shape from JobAccepted, and who cancelled it and why
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> Api.asAdmin().when().get("/jobs/" + id).then()
                .body("state", equalTo("CANCELLED"))
                .body("replicas", equalTo(2)).body("gpus", equalTo(8)).body("submitter", equalTo("erin"))
                .body("minRuntimeSeconds", equalTo(600)).body("priority", equalTo(3))
                .body("cancellation.requestedBy", equalTo("dave")).body("cancellation.reason", equalTo("typo"))
                .body("history.type", equalTo(List.of("JobAccepted", "JobCancelled"))));
    }

    private static void publish(String jobId, JobState stateAfter, Instant at, Object payload) {
        TestLog.publish(Topics.JOB_EVENTS, jobId, JobEvent.newBuilder().setEventId(UUID.randomUUID().toString())
                .setOccurredAt(at).setJobId(jobId).setStateAfter(stateAfter).setPayload(payload).build());
    }
}
