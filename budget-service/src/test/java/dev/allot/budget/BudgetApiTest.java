package dev.allot.budget;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.emptyOrNullString;
import static org.hamcrest.Matchers.hasKey;

import dev.allot.schemas.BudgetDefined;
import dev.allot.schemas.BudgetEvent;
import dev.allot.schemas.BudgetRemoved;
import dev.allot.schemas.catalogue.Topics;
import dev.allot.testsupport.AllotInfraTestResource;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.path.json.JsonPath;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

@QuarkusTest
@QuarkusTestResource(value = AllotInfraTestResource.class, restrictToAnnotatedClass = false)
class BudgetApiTest {

    static void put(String path, String body, int status) {
        Api.asAdmin().contentType(ContentType.JSON).body(body)
                .when().put("/budgets/" + path)
                .then().statusCode(status);
    }

    @Test
    void givenATree_whenItIsPut_thenTheCompactedBudgetsTopicHoldsBudgetDefinedPerPath_andGetShowsFractions()
            throws Exception {
        String org = TestLog.uniquePrefix();
        put(org, "{\"share\":1}", 200);
        put(org + "/vision", "{\"share\":3}", 200);
        put(org + "/nlp", "{\"share\":1}", 200);
        put(org + "/vision/team-a", "{\"share\":1}", 200);
        put(org + "/vision/team-b", "{\"share\":1}", 200);

        List<ConsumerRecord<String, BudgetEvent>> log = TestLog.read(Topics.BUDGETS,
                key -> key.equals(org) || key.startsWith(org + "/"), seen -> seen.size() >= 5);
        assertThat(log).extracting(ConsumerRecord::key).containsExactly(org, org + "/vision", org + "/nlp",
                org + "/vision/team-a", org + "/vision/team-b");
        BudgetDefined teamA = (BudgetDefined) log.get(3).value().getPayload();
        assertThat(teamA.getPath()).isEqualTo(org + "/vision/team-a");
        assertThat(teamA.getParent()).isEqualTo(org + "/vision");
        assertThat(teamA.getShare()).isEqualTo(1.0);
        assertThat(teamA.getDefinedBy()).isEqualTo("admin");
        try (Admin admin = TestLog.infra().admin()) {
            ConfigResource budgets = new ConfigResource(ConfigResource.Type.TOPIC, Topics.BUDGETS.name());
            Config config = admin.describeConfigs(List.of(budgets)).all().get().get(budgets);
            assertThat(config.get("cleanup.policy").value()).isEqualTo("compact");
        }

        // read-your-writes: the 200 above means the projection already has it
        JsonPath tree = Api.asAdmin().when().get("/budgets").then().statusCode(200).extract().jsonPath();
        Map<String, Object> root = tree.getMap("accounts.find { it.path == '" + org + "' }");
        assertThat(root).containsEntry("share", 1.0f);
        JsonPath vision = Api.asAdmin().when().get("/budgets/" + org + "/vision").then().statusCode(200).extract().jsonPath();
        assertThat(vision.getDouble("fractionOfParent")).isCloseTo(0.75, within(1e-6));
        assertThat(vision.getList("children.path")).containsExactly(org + "/vision/team-a", org + "/vision/team-b");
        assertThat(vision.getDouble("children[0].fractionOfParent")).isCloseTo(0.5, within(1e-6));
        // roots are siblings of each other (other tests' roots share the cluster), so go from the root's fraction
        double rootFraction = ((Number) root.get("fractionOfCluster")).doubleValue();
        assertThat(vision.getDouble("children[0].fractionOfCluster")).isCloseTo(rootFraction * 0.75 * 0.5, within(1e-6));
        JsonPath nlp = Api.asAdmin().when().get("/budgets/" + org + "/nlp").then().statusCode(200).extract().jsonPath();
        assertThat(nlp.getDouble("fractionOfParent")).isCloseTo(0.25, within(1e-6));
    }

    @Test
    void givenAnAccount_whenItsShareChanges_thenTheNextReadShowsTheNewFractions() {
        String org = TestLog.uniquePrefix();
        put(org, "{\"share\":1}", 200);
        put(org + "/a", "{\"share\":1}", 200);
        put(org + "/b", "{\"share\":1}", 200);

        put(org + "/a", "{\"share\":4}", 200);

        Api.asAdmin().when().get("/budgets/" + org + "/a").then().statusCode(200)
                .body("share", equalTo(4.0f))
                .body("fractionOfParent", equalTo(0.8f));
    }

    @Test
    void givenAParentWithAChild_whenTheParentIsDeleted_thenConflictNamingThePath_andTheLeafCanBeDeleted() {
        String org = TestLog.uniquePrefix();
        put(org, "{\"share\":1,\"owners\":[\"bob\"]}", 200);
        put(org + "/team", "{\"share\":1}", 200);

        Api.asAdmin().when().delete("/budgets/" + org).then().statusCode(409).body("field", equalTo("path"));

        // bob owns org: he removes what is beneath it, and the event names him
        Api.as("bob").header("X-Allot-User", "bob").when().delete("/budgets/" + org + "/team").then().statusCode(200);
        List<ConsumerRecord<String, BudgetEvent>> log = TestLog.read(Topics.BUDGETS,
                key -> key.equals(org + "/team"), seen -> seen.size() >= 2);
        BudgetRemoved removed = (BudgetRemoved) log.get(1).value().getPayload();
        assertThat(removed.getPath()).isEqualTo(org + "/team");
        assertThat(removed.getRemovedBy()).isEqualTo("bob");
        Api.asAdmin().when().get("/budgets/" + org + "/team").then().statusCode(404).body("field", equalTo("path"));
        Api.asAdmin().when().get("/budgets").then().body("accounts.path", hasItem(org))
                .body("accounts.find { it.path == '" + org + "' }.children", equalTo(List.of()));

        Api.asAdmin().when().delete("/budgets/" + org).then().statusCode(200);
        Api.asAdmin().when().get("/budgets").then().body("accounts.path", not(hasItem(org)));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "unknown parent      | {org}/ghost/team | {\"share\":1}                  | 422 | parent",
            "missing share       | {org}/x          | {}                             | 400 | share",
            "null share          | {org}/x          | {\"share\":null}               | 400 | share",
            "zero share          | {org}/x          | {\"share\":0}                  | 400 | share",
            "negative share      | {org}/x          | {\"share\":-2}                 | 400 | share",
            "NaN share           | {org}/x          | {\"share\":NaN}                | 400 | share",
            "infinite share      | {org}/x          | {\"share\":Infinity}           | 400 | share",
            "text share          | {org}/x          | {\"share\":\"one\"}            | 400 | share",
            "bad path segment    | {org}/a b        | {\"share\":1}                  | 400 | path",
            "segment starts with dash | {org}/-x    | {\"share\":1}                  | 400 | path",
            "self parenting      | {org}/x          | {\"share\":1,\"parent\":\"{org}/x\"}   | 422 | parent",
            "under own descendant| {org}            | {\"share\":1,\"parent\":\"{org}/x/y\"} | 422 | parent",
            "move elsewhere      | {org}/x          | {\"share\":1,\"parent\":\"other\"}     | 422 | parent",
            "malformed JSON      | {org}/x          | {\"share\":                     | 400 | body",
    })
    void givenAnInvalidDefinition_whenItIsPut_thenA4xxNamesTheField(String name, String path, String body,
                                                                     int status, String field) {
        String org = TestLog.uniquePrefix();
        put(org, "{\"share\":1}", 200);

        Api.asAdmin().contentType(ContentType.JSON).body(body.replace("{org}", org))
                .urlEncodingEnabled(false)
                .when().put("/budgets/" + path.replace("{org}", org).replace(" ", "%20"))
                .then().statusCode(status)
                .body("field", equalTo(field))
                .body("message", not(emptyOrNullString()));
    }

    @Test
    void givenAnUnknownAccount_whenItIsDeleted_thenNotFoundNamingThePath() {
        Api.asAdmin().when().delete("/budgets/" + TestLog.uniquePrefix()).then().statusCode(404).body("field", equalTo("path"));
    }

    @Test
    void givenAnInvalidWrite_whenItIsRefused_thenNothingIsWrittenToTheLog() {
        String org = TestLog.uniquePrefix();
        put(org + "/orphan", "{\"share\":1}", 422);
        put(org, "{\"share\":1}", 200);

        List<ConsumerRecord<String, BudgetEvent>> log = TestLog.read(Topics.BUDGETS,
                key -> key.startsWith(org), seen -> seen.stream().anyMatch(r -> r.key().equals(org)));
        assertThat(log).extracting(ConsumerRecord::key).containsExactly(org);
    }

    @Test
    void givenTheService_whenTheOpenApiDocumentAndHealthAreRead_thenTheyDescribeTheApiAndAreUp() {
        given().when().get("/q/openapi?format=json").then().statusCode(200)
                .body("paths", hasKey("/budgets/{path}"))
                .body("paths", hasKey("/jobs"))
                .body("paths", hasKey("/queue"))
                .body("components.schemas", hasKey("SubmitRequest"))
                .body("components.schemas", hasKey("ShareRequest"));
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
                given().when().get("/q/health/ready").then().statusCode(200));
        given().when().get("/q/metrics").then().statusCode(200).body(containsString("allot_budget_writes"));
    }
}
