package dev.allot.budget;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;

import dev.allot.schemas.AccountDemand;
import dev.allot.schemas.ChargeMode;
import dev.allot.schemas.NodeRegistered;
import dev.allot.schemas.BudgetDefined;
import dev.allot.schemas.BudgetEvent;
import dev.allot.schemas.NodeStatus;
import dev.allot.schemas.UsageReported;
import dev.allot.schemas.catalogue.Topics;
import dev.allot.testsupport.AllotInfraTestResource;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The hourly ledger read from usage and account-demand: GET /usage/{path} and the owed vs delivered
 * figures of GET /budgets. Owed = min(entitled, demanded) hour by hour; delivered = charged.
 */
@QuarkusTest
@QuarkusTestResource(value = AllotInfraTestResource.class, restrictToAnnotatedClass = false)
class UsageApiTest {

    private static final long HOUR = 3_600_000L;

    @Test
    void givenUsageAndDemandOverTwoHours_whenUsageIsRead_thenHoursTotalsAndOwedFollowTheLedgerRule() {
        String org = TestLog.uniquePrefix();
        String team = org + "/team-a";
        String cluster = org + "-c";
        long h = Instant.now().truncatedTo(ChronoUnit.HOURS).toEpochMilli() - 3 * HOUR;
        // the tree as the log has it, created an hour before the usage below (owed from then on)
        for (String[] account : new String[][] {{org, null, "1"}, {team, org, "1"}, {org + "/team-b", org, "3"}}) {
            TestLog.publish(Topics.BUDGETS, account[0], BudgetEvent.newBuilder().setEventId(UUID.randomUUID().toString())
                    .setOccurredAt(Instant.now()).setPayload(BudgetDefined.newBuilder().setPath(account[0])
                            .setParent(account[1]).setShare(Double.parseDouble(account[2])).setEffectiveAt(Instant.now())
                            .setCreatedAt(Instant.ofEpochMilli(h - HOUR)).setDefinedBy("admin").build()).build());
        }
        await().atMost(Duration.ofSeconds(20)).until(() -> Api.asAdmin().when().get("/budgets/" + org + "/team-b")
                .statusCode() == 200);
        // one node of 8 GPUs
        TestLog.publish(Topics.NODE_STATUS, cluster + "-n1", NodeStatus.newBuilder().setEventId(UUID.randomUUID().toString())
                .setOccurredAt(Instant.now()).setNodeId(cluster + "-n1")
                .setPayload(new NodeRegistered(cluster, 8, "fake", 1L, "a", null)).build());
        // hour h: held 4 GPUs, asked for 4 -> owed min(entitled, 4), delivered 4
        usage(team, cluster, h, h + HOUR, 4 * 3600.0, ChargeMode.ALLOCATED);
        demand(team, cluster, h, h + HOUR, 4.0);
        // a tile across h+1 and h+2, half in each: 1 GPU for 2 hours, unallocated
        usage(team, cluster, h + HOUR + HOUR / 2, h + 2 * HOUR + HOUR / 2, 3600.0, ChargeMode.UNALLOCATED);
        // hour h+1: asked for 1 GPU -> owed min(entitled, 1)
        demand(team, cluster, h + HOUR, h + 2 * HOUR, 1.0);

        // roots are siblings of each other (other tests define roots too): the entitlement follows the fraction
        double fraction = Api.asAdmin().when().get("/budgets/" + team).then().statusCode(200).extract().jsonPath()
                .getDouble("fractionOfCluster");
        double entitledPerHour = fraction * 8;
        double owed = Math.min(entitledPerHour, 4) + Math.min(entitledPerHour, 1);
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(Api.asAdmin().queryParam("cluster", cluster)
                .queryParam("days", 1).when().get("/usage/" + team).then().statusCode(200).extract().jsonPath()
                .getDouble("deliveredGpuHours")).isEqualTo(4.0));
        JsonPath usage = Api.asAdmin().queryParam("cluster", cluster).queryParam("days", 1).when().get("/usage/" + team)
                .then().statusCode(200).extract().jsonPath();
        List<Map<String, Object>> hours = usage.getList("hours");
        assertThat(hours).hasSize(24);
        Map<String, Object> first = hours.get(hours.size() - 4);
        assertThat(first.get("hour")).isEqualTo(Instant.ofEpochMilli(h).toString());
        assertThat(((Number) first.get("chargedGpuHours")).doubleValue()).isEqualTo(4.0);
        assertThat(((Number) first.get("entitledGpuHours")).doubleValue()).isCloseTo(entitledPerHour, within(1e-6));
        assertThat(((Number) first.get("owedGpuHours")).doubleValue()).isCloseTo(Math.min(entitledPerHour, 4), within(1e-6));
        // the hour before the tree was created is owed nothing
        assertThat(((Number) hours.get(hours.size() - 6).get("entitledGpuHours")).doubleValue()).isZero();
        assertThat(((Number) hours.get(hours.size() - 3).get("unallocatedGpuHours")).doubleValue()).isEqualTo(0.5);
        assertThat(((Number) hours.get(hours.size() - 2).get("unallocatedGpuHours")).doubleValue()).isEqualTo(0.5);
        assertThat(usage.getDouble("unallocatedGpuHours")).isEqualTo(1.0);
        assertThat(usage.getDouble("owedGpuHours")).isCloseTo(owed, within(1e-4));
        assertThat(usage.getDouble("entitledGpuHours")).isCloseTo(entitledPerHour * 5, within(1e-3)); // since creation
        assertThat(usage.getDouble("deliveredOverOwed")).isCloseTo(Math.min(1, 4 / owed), within(1e-4));

        // the parent sums its children; /budgets carries the 7-day owed vs delivered
        assertThat(Api.asAdmin().queryParam("cluster", cluster).when().get("/usage/" + org).then().extract().jsonPath()
                .getDouble("deliveredGpuHours")).isEqualTo(4.0);
        JsonPath budget = Api.asAdmin().when().get("/budgets/" + team).then().statusCode(200).extract().jsonPath();
        assertThat(budget.getDouble("owed." + cluster + ".owedGpuHours")).isCloseTo(owed, within(1e-4));
        assertThat(budget.getDouble("owed." + cluster + ".deliveredGpuHours")).isEqualTo(4.0);
        assertThat(budget.getDouble("owed." + cluster + ".entitledGpuHours")).isCloseTo(entitledPerHour * 5, within(1e-2)); // the 7 days, owed since creation
    }

    @Test
    void givenBadQueries_whenUsageIsRead_thenTheFieldIsNamed() {
        String org = TestLog.uniquePrefix();
        BudgetApiTest.put(org, "{\"share\":1}", 200);
        Api.asAdmin().when().get("/usage/" + org + "/nobody").then().statusCode(404).body("field", equalTo("path"));
        Api.asAdmin().queryParam("days", 9).when().get("/usage/" + org).then().statusCode(400).body("field", equalTo("days"));
    }

    private static void usage(String account, String cluster, long from, long to, double gpuSeconds, ChargeMode mode) {
        String job = UUID.randomUUID().toString();
        TestLog.publish(Topics.USAGE, job, UsageReported.newBuilder().setJobId(job).setAccount(account)
                .setCluster(cluster).setNodeId(cluster + "-n1").setGpus(8).setIntervalStart(Instant.ofEpochMilli(from))
                .setIntervalEnd(Instant.ofEpochMilli(to)).setGpuSeconds(gpuSeconds).setChargeMode(mode).build());
    }

    private static void demand(String account, String cluster, long from, long to, double gpus) {
        TestLog.publish(Topics.ACCOUNT_DEMAND, account, new AccountDemand(account, cluster, Instant.ofEpochMilli(from),
                Instant.ofEpochMilli(to), gpus, gpus, 0.0));
    }
}
