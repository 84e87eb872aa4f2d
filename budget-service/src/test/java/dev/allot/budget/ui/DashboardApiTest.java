package dev.allot.budget.ui;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.awaitility.Awaitility.await;

import dev.allot.budget.TestLog;
import dev.allot.schemas.AccountDemand;
import dev.allot.schemas.AccountRatio;
import dev.allot.schemas.ChargeMode;
import dev.allot.schemas.GpuAssignment;
import dev.allot.schemas.JobEvent;
import dev.allot.schemas.JobPlaced;
import dev.allot.schemas.JobPreempted;
import dev.allot.schemas.JobState;
import dev.allot.schemas.NodeDrainRequested;
import dev.allot.schemas.NodeDrained;
import dev.allot.schemas.NodeRegistered;
import dev.allot.schemas.NodeStatus;
import dev.allot.schemas.PreemptionReason;
import dev.allot.schemas.catalogue.Topics;
import dev.allot.testsupport.AllotInfraTestResource;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The data behind the /ui pages, from events on the real broker; the pages themselves are tested in a browser (e2e). */
@QuarkusTest
@QuarkusTestResource(value = AllotInfraTestResource.class, restrictToAnnotatedClass = false)
class DashboardApiTest {

    static final long HOUR = 3_600_000L;

    @Test
    void givenAPlacedThenPreemptedJobAndADrainedNode_whenTheTimelineIsAsked_thenTheRunsAndMarksAreThere() {
        String cluster = TestLog.uniquePrefix();
        String node = cluster + "-n1";
        Instant t0 = Instant.now().minusSeconds(600);
        nodeStatus(node, t0, new NodeRegistered(cluster, 8, "fake", 1L, "test-agent", null));
        jobEvent("victim-" + cluster, JobState.RUNNING, t0.plusSeconds(10), JobPlaced.newBuilder().setCluster(cluster)
                .setBudget("lab/a").setChargeMode(ChargeMode.ALLOCATED).setAttempt(1).setExplanation(null)
                .setProtectedUntil(t0.plusSeconds(70))
                .setAssignments(List.of(new GpuAssignment(node, 1L, 0, List.of(0, 1)))).build());
        jobEvent("victim-" + cluster, JobState.WAITING, t0.plusSeconds(300), JobPreempted.newBuilder()
                .setReason(PreemptionReason.FAIR_SHARE).setExplanation("lab/b is further below its share")
                .setPreemptorJobId("winner-" + cluster).setPreemptorAccount("lab/b")
                .setRatios(List.of(new AccountRatio("lab/a", 10.0, 5.0, 2.0), new AccountRatio("lab/b", 1.0, 5.0, 0.2)))
                .setLostGpuSeconds(580).setRequeue(true).build());
        nodeStatus(node, t0.plusSeconds(400), new NodeDrainRequested(cluster, "alice", "MAINT-1"));
        nodeStatus(node, t0.plusSeconds(420), new NodeDrained(cluster));

        JsonPath timeline = await().atMost(Duration.ofSeconds(30)).until(() -> dev.allot.budget.Api.asAdmin().queryParam("cluster", cluster)
                .get("/ui/api/timeline").then().statusCode(200).extract().jsonPath(), t -> t.getList("runs").size() == 2
                        && t.getList("nodes[0].marks").size() == 2);
        assertThat(timeline.getList("runs.gpu", Integer.class)).containsExactlyInAnyOrder(0, 1);
        assertThat(timeline.getList("runs.endedBy", String.class)).containsOnly("preempted FAIR_SHARE");
        assertThat(timeline.getList("runs.preemptor", String.class)).containsOnly("winner-" + cluster);
        assertThat(timeline.getList("nodes[0].marks.kind", String.class)).containsExactly("draining", "drained");
        assertThat(timeline.getBoolean("nodes[0].drained")).isTrue();

        String svg = dev.allot.budget.Api.asAdmin().queryParam("cluster", cluster).get("/ui/api/timeline.svg").then().statusCode(200)
                .contentType("image/svg+xml").extract().asString();
        assertThat(svg).contains("data-job=\"victim-" + cluster + "\"").contains("class=\"preemption\"")
                .contains("class=\"mark drained\"").contains(node + " (drained)");
    }

    @Test
    void givenDemandAndDeliveryInAnHour_whenOwedIsAsked_thenOwedIsEntitlementCappedAtDemandAndDeliveredIsWhatRan() {
        String cluster = TestLog.uniquePrefix();
        String root = TestLog.uniquePrefix();
        String team = root + "/team";
        dev.allot.budget.Api.asAdmin().contentType("application/json").body(Map.of("share", 1)).put("/budgets/" + root).then().statusCode(200);
        dev.allot.budget.Api.asAdmin().contentType("application/json").body(Map.of("share", 1)).put("/budgets/" + team).then().statusCode(200);
        nodeStatus(cluster + "-n1", Instant.now(), new NodeRegistered(cluster, 8, "fake", 1L, "test-agent", null));
        // the last whole hour: 4 GPUs asked for and 2 held for half of it -> demanded 2 GPU-h, delivered 1 GPU-h
        long hour = System.currentTimeMillis() / HOUR * HOUR - HOUR;
        TestLog.publish(Topics.ACCOUNT_DEMAND, Topics.accountKey(cluster, team), new AccountDemand(team, cluster,
                Instant.ofEpochMilli(hour), Instant.ofEpochMilli(hour + HOUR / 2), 4.0, 2.0, 2.0));

        JsonPath owed = await().atMost(Duration.ofSeconds(30)).until(() -> dev.allot.budget.Api.asAdmin().queryParam("cluster", cluster)
                .get("/ui/api/owed").then().statusCode(200).extract().jsonPath(),
                o -> o.get("accounts.'" + team + "'.deliveredGpuHours") != null
                        && o.getDouble("accounts.'" + team + "'.deliveredGpuHours") > 0
                        && o.getDouble("accounts.'" + team + "'.entitledGpuHours") > 0);
        double fraction = dev.allot.budget.Api.asAdmin().get("/budgets/" + team).then().statusCode(200).extract().jsonPath()
                .getDouble("fractionOfCluster");
        double expectedOwed = Math.min(fraction * 8, 2.0); // only that hour had demand
        assertThat(owed.getDouble("accounts.'" + team + "'.deliveredGpuHours")).isEqualTo(1.0);
        assertThat(owed.getDouble("accounts.'" + team + "'.owedGpuHours")).isCloseTo(expectedOwed, within(1e-4));
        // the root sums its subtree's demand and delivery
        assertThat(owed.getDouble("accounts.'" + root + "'.deliveredGpuHours")).isEqualTo(1.0);
        assertThat(owed.getDouble("accounts.'" + team + "'.deliveredOverOwed"))
                .isCloseTo(Math.min(1.0, 1.0 / expectedOwed), within(1e-4));

        String chart = dev.allot.budget.Api.asAdmin().queryParam("cluster", cluster).queryParam("account", team).get("/ui/api/owed.svg")
                .then().statusCode(200).contentType("image/svg+xml").extract().asString();
        assertThat(chart).startsWith("<svg").contains("class=\"delivered\"").contains("class=\"owed\"")
                .contains("delivered 1.00 GPU-h over 7 days");
        dev.allot.budget.Api.asAdmin().queryParam("cluster", cluster).queryParam("account", root + "/nobody").get("/ui/api/owed.svg")
                .then().statusCode(404);
        dev.allot.budget.Api.asAdmin().get("/ui/api/owed").then().statusCode(400);
        dev.allot.budget.Api.asAdmin().queryParam("cluster", cluster).queryParam("hours", 0).get("/ui/api/timeline").then().statusCode(400);
    }

    @Test
    void givenThePages_whenServed_thenTheyLoadNothingFromAnotherHost() throws IOException {
        for (String page : List.of("index.html", "queue.html", "job.html", "timeline.html")) {
            dev.allot.budget.Api.asAdmin().get("/ui/" + page).then().statusCode(200).contentType("text/html");
        }
        for (String file : List.of("index.html", "queue.html", "job.html", "timeline.html", "ui.js", "ui.css")) {
            try (InputStream in = getClass().getClassLoader().getResourceAsStream("META-INF/resources/ui/" + file)) {
                assertThat(in).as(file).isNotNull();
                String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
                assertThat(text).as(file + " refers to no other host").doesNotContain("http://").doesNotContain("https://")
                        .doesNotContain("//cdn");
            }
        }
    }

    private static void nodeStatus(String node, Instant at, Object payload) {
        TestLog.publish(Topics.NODE_STATUS, node, NodeStatus.newBuilder().setEventId(UUID.randomUUID().toString())
                .setOccurredAt(at).setNodeId(node).setPayload(payload).build());
    }

    private static void jobEvent(String job, JobState after, Instant at, Object payload) {
        TestLog.publish(Topics.JOB_EVENTS, job, JobEvent.newBuilder().setEventId(UUID.randomUUID().toString())
                .setOccurredAt(at).setJobId(job).setStateAfter(after).setPayload(payload).build());
    }
}
