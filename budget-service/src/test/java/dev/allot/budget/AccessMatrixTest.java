package dev.allot.budget;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.equalTo;

import dev.allot.schemas.JobCancelRequested;
import dev.allot.schemas.JobRequest;
import dev.allot.schemas.JobSubmitted;
import dev.allot.schemas.catalogue.Topics;
import dev.allot.testsupport.AllotInfraTestResource;
import dev.allot.testsupport.TestTokens;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.specification.RequestSpecification;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

/**
 * Who may do what, on the real service, broker and registry: every endpoint x every kind of caller, and
 * nothing in the log for what was refused. One tree; each caller gets targets of its own where an allowed
 * write would change what the next caller finds:
 *
 * <pre>
 * T            owners [anna]                  (anna: owner of an ancestor)
 * T/A          owners [olga]                  (olga: owner of the account)
 * T/A/team     members [group:G]              (mia, max: members through group G)
 * T/A/old-X    (one per caller X, to be removed)
 * T/B          owners [sam]                   (sam: owner of a sibling)
 * T/B/team     members [otto]                 (otto: member of another team)
 * jobs: mia's and max's (one each per caller), charged to T/A/team
 * </pre>
 */
@QuarkusTest
@QuarkusTestResource(value = AllotInfraTestResource.class, restrictToAnnotatedClass = false)
class AccessMatrixTest {

    private static final String CLUSTER = "matrix";
    private static final List<String> CALLERS = List.of("anonymous", "member", "otherMember", "owner",
            "ancestorOwner", "siblingOwner", "operator", "admin");

    /**
     * One caller in the shared tree: its token (null: anonymous) and the targets of its own (mia's and max's jobs,
     * an account to remove, names to create), so that one caller's allowed writes leave the next one's world as it
     * was; shared targets (re-shares) are idempotent.
     */
    private record World(String caller, String token, String root, String group, String miasJob, String maxsJob) {
        String path(String relative) {
            return relative.isEmpty() ? root : root + "/" + relative;
        }

        String own(String name) {
            return name + "-" + caller.toLowerCase();
        }
    }

    private record Endpoint(String name, Function<World, Integer> call) {
    }

    private static final List<Endpoint> ENDPOINTS = List.of(
            new Endpoint("GET /budgets", w -> send(w).get("/budgets").statusCode()),
            new Endpoint("GET /budgets/T/A", w -> send(w).get("/budgets/" + w.path("A")).statusCode()),
            new Endpoint("GET /jobs", w -> send(w).queryParam("budget", w.path("A/team")).get("/jobs").statusCode()),
            new Endpoint("GET /jobs/{mia's}", w -> send(w).get("/jobs/" + w.miasJob()).statusCode()),
            new Endpoint("GET /queue", w -> send(w).queryParam("cluster", CLUSTER).get("/queue").statusCode()),
            new Endpoint("PUT /budgets/{new root}", w -> put(w, w.own(w.root() + "x"), "{\"share\":1}")),
            new Endpoint("PUT /budgets/T/A/new", w -> put(w, w.path(w.own("A/new")), "{\"share\":1}")),
            new Endpoint("PUT /budgets/T/A (own share)", w -> put(w, w.path("A"), "{\"share\":2}")),
            new Endpoint("PUT /budgets/T/A/team members", w -> put(w, w.path("A/team"),
                    "{\"share\":1,\"members\":[\"group:" + w.group() + "\"]}")),
            new Endpoint("DELETE /budgets/T/A/old", w -> send(w).delete("/budgets/" + w.path(w.own("A/old")))
                    .statusCode()),
            new Endpoint("PUT /budgets/T/B/team (sibling)", w -> put(w, w.path("B/team"), "{\"share\":3}")),
            new Endpoint("POST /jobs to T/A/team", w -> send(w).contentType(ContentType.JSON)
                    .body(job(w.path("A/team"), w.own(w.root() + "-new"))).post("/jobs").statusCode()),
            new Endpoint("DELETE /jobs/{mia's}", w -> send(w).delete("/jobs/" + w.miasJob()).statusCode()),
            new Endpoint("DELETE /jobs/{max's}", w -> send(w).delete("/jobs/" + w.maxsJob()).statusCode()));

    /** Rows: endpoints; columns: CALLERS. */
    private static final String EXPECTED = """
            GET /budgets                     401 200 200 200 200 200 200 200
            GET /budgets/T/A                 401 200 200 200 200 200 200 200
            GET /jobs                        401 200 200 200 200 200 200 200
            GET /jobs/{mia's}                401 200 200 200 200 200 200 200
            GET /queue                       401 200 200 200 200 200 200 200
            PUT /budgets/{new root}          401 403 403 403 403 403 403 200
            PUT /budgets/T/A/new             401 403 403 200 200 403 403 200
            PUT /budgets/T/A (own share)     401 403 403 403 200 403 403 200
            PUT /budgets/T/A/team members    401 403 403 200 200 403 403 200
            DELETE /budgets/T/A/old          401 403 403 200 200 403 403 200
            PUT /budgets/T/B/team (sibling)  401 403 403 403 200 200 403 200
            POST /jobs to T/A/team           401 202 403 403 403 403 403 202
            DELETE /jobs/{mia's}             401 202 403 202 202 403 403 202
            DELETE /jobs/{max's}             401 403 403 202 202 403 403 202
            """;

    @Test
    void givenEveryKindOfCaller_whenEveryEndpointIsCalled_thenTheMatrixHolds_andNothingRefusedIsInTheLog() {
        Api.nodeOf(CLUSTER);
        String root = TestLog.uniquePrefix();
        World shared = world(root, "admin");
        Map<String, World> worlds = new LinkedHashMap<>();
        for (String caller : CALLERS) {
            World w = new World(caller, tokenOf(caller, shared.group()), root, shared.group(),
                    root + "-mia-" + caller.toLowerCase(), root + "-max-" + caller.toLowerCase());
            give(w);
            worlds.put(caller, w);
        }

        StringBuilder actual = new StringBuilder();
        for (Endpoint endpoint : ENDPOINTS) {
            actual.append(String.format("%-32s", endpoint.name()));
            for (String caller : CALLERS) {
                actual.append(' ').append(endpoint.call().apply(worlds.get(caller)));
            }
            actual.append('\n');
        }
        assertThat(actual.toString()).isEqualTo(EXPECTED);

        // the log holds the setup and the allowed writes, and nothing of the refused ones
        Map<String, Integer> budgets = new TreeMap<>();
        Map<String, Integer> requests = new TreeMap<>();
        for (String path : List.of("", "A", "A/team", "A/old", "B", "B/team")) {
            budgets.put(shared.path(path), 1);
        }
        requests.put(shared.miasJob(), 1);
        requests.put(shared.maxsJob(), 1);
        for (World w : worlds.values()) {
            boolean admin = w.caller().equals("admin");
            boolean ownerOfA = Set.of("owner", "ancestorOwner", "admin").contains(w.caller());
            boolean aboveA = Set.of("ancestorOwner", "admin").contains(w.caller());
            boolean ownerOfB = Set.of("siblingOwner", "ancestorOwner", "admin").contains(w.caller());
            budgets.merge(shared.path("A"), aboveA ? 1 : 0, Integer::sum);
            budgets.merge(shared.path("A/team"), ownerOfA ? 1 : 0, Integer::sum);
            budgets.merge(shared.path("B/team"), ownerOfB ? 1 : 0, Integer::sum);
            budgets.put(w.own(root + "x"), admin ? 1 : 0);
            budgets.put(w.path(w.own("A/new")), ownerOfA ? 1 : 0);
            budgets.put(w.path(w.own("A/old")), 1 + (ownerOfA ? 1 : 0));
            requests.put(w.own(root + "-new"), Set.of("member", "admin").contains(w.caller()) ? 1 : 0);
            requests.put(w.miasJob(), 1 + (Set.of("member", "owner", "ancestorOwner", "admin")
                    .contains(w.caller()) ? 1 : 0));
            requests.put(w.maxsJob(), 1 + (ownerOfA ? 1 : 0));
        }
        assertThat(TestLog.countsByKey(Topics.BUDGETS, root, budgets)).isEqualTo(budgets);
        assertThat(TestLog.countsByKey(Topics.JOB_REQUESTS, root, requests)).isEqualTo(requests);
    }

    /** A caller's own targets in the shared tree: an account to remove, mia's and max's jobs. */
    private static void give(World w) {
        Api.asAdmin().contentType(ContentType.JSON).body("{\"share\":1}").put("/budgets/" + w.path(w.own("A/old")))
                .then().statusCode(200);
        Api.as("mia", w.group()).contentType(ContentType.JSON).body(job(w.path("A/team"), w.miasJob()))
                .post("/jobs").then().statusCode(202);
        Api.as("max", w.group()).contentType(ContentType.JSON).body(job(w.path("A/team"), w.maxsJob()))
                .post("/jobs").then().statusCode(202);
    }

    @Test
    void givenTokensTheServiceMustNotTrust_whenTheyAreUsed_then401InTheErrorShape_andNothingIsWritten() {
        Api.nodeOf(CLUSTER);
        World w = world(TestLog.uniquePrefix(), "member");
        Map<String, String> tokens = new LinkedHashMap<>();
        tokens.put("expired", TestTokens.token().subject("mia").groups(w.group())
                .expiresIn(Duration.ofMinutes(-5)).sign());
        tokens.put("wrongly signed", TestTokens.token().subject("mia").groups(w.group()).signWithOtherKey());
        tokens.put("another audience", TestTokens.token().subject("mia").groups(w.group()).audience("grafana").sign());
        tokens.put("another issuer", TestTokens.token().subject("mia").groups(w.group()).issuer("evil").sign());
        tokens.put("alg none", TestTokens.token().subject("mia").groups(w.group()).unsigned());
        tokens.put("garbage", "not-a-jwt");
        Map<String, Integer> requests = new TreeMap<>(Map.of(w.miasJob(), 1, w.maxsJob(), 1));
        int n = 0;
        for (Map.Entry<String, String> token : tokens.entrySet()) {
            String id = w.root() + "-refused-" + n++;
            given().auth().oauth2(token.getValue()).when().get("/budgets").then()
                    .statusCode(401).body("status", equalTo(401)).body("field", equalTo("Authorization"))
                    .header("WWW-Authenticate", "Bearer");
            assertThat(given().auth().oauth2(token.getValue()).contentType(ContentType.JSON)
                    .body(job(w.path("A/team"), id)).post("/jobs").statusCode()).as(token.getKey()).isEqualTo(401);
            requests.put(id, 0);
        }
        // the same caller with a good token is let in (so the refusals above were the tokens')
        String good = w.root() + "-good";
        given().auth().oauth2(w.token()).contentType(ContentType.JSON).body(job(w.path("A/team"), good))
                .post("/jobs").then().statusCode(202);
        requests.put(good, 1);
        given().header("Authorization", "Basic bWlhOnNlY3JldA==").when().get("/jobs").then().statusCode(401);
        assertThat(TestLog.countsByKey(Topics.JOB_REQUESTS, w.root(), requests)).isEqualTo(requests);
    }

    @Test
    void givenAnonymousCalls_whenHealthMetricsAndTheApiDocumentAreRead_thenTheyAreOpen() {
        given().when().get("/q/health/ready").then().statusCode(200);
        given().when().get("/q/metrics").then().statusCode(200);
        given().when().get("/q/openapi?format=json").then().statusCode(200);
        given().when().get("/budgets").then().statusCode(401).body("field", equalTo("Authorization"));
    }

    @Test
    void givenACallerClaimingAnotherName_whenTheyWrite_then400NamingTheField_andTheTokensNameIsRecorded() {
        Api.nodeOf(CLUSTER);
        World w = world(TestLog.uniquePrefix(), "member");
        String token = w.token();
        given().auth().oauth2(token).contentType(ContentType.JSON)
                .body(job(w.path("A/team"), w.root() + "-claims").replace("}", ",\"submitter\":\"max\"}"))
                .post("/jobs").then().statusCode(400).body("field", equalTo("submitter"));
        given().auth().oauth2(token).header("X-Allot-Submitter", "max").contentType(ContentType.JSON)
                .body(job(w.path("A/team"), w.root() + "-claims")).post("/jobs")
                .then().statusCode(400).body("field", equalTo("X-Allot-Submitter"));
        given().auth().oauth2(TestTokens.user("olga")).contentType(ContentType.JSON)
                .body("{\"share\":1,\"definedBy\":\"anna\"}").put("/budgets/" + w.path("A/new"))
                .then().statusCode(400).body("field", equalTo("definedBy"));
        given().auth().oauth2(TestTokens.user("olga")).header("X-Allot-User", "anna").contentType(ContentType.JSON)
                .body("{\"share\":1}").put("/budgets/" + w.path("A/new"))
                .then().statusCode(400).body("field", equalTo("X-Allot-User"));
        given().auth().oauth2(TestTokens.user("olga")).header("X-Allot-Submitter", "anna")
                .delete("/jobs/" + w.miasJob()).then().statusCode(400).body("field", equalTo("X-Allot-Submitter"));

        // naming oneself is fine; the record says the token's name either way
        given().auth().oauth2(token).contentType(ContentType.JSON)
                .body(job(w.path("A/team"), w.root() + "-self").replace("}", ",\"submitter\":\"mia\"}"))
                .post("/jobs").then().statusCode(202);
        given().auth().oauth2(TestTokens.user("olga")).delete("/jobs/" + w.miasJob()).then().statusCode(202);
        Map<String, Integer> requests = new TreeMap<>(Map.of(w.root() + "-claims", 0, w.root() + "-self", 1,
                w.miasJob(), 2, w.maxsJob(), 1));
        assertThat(TestLog.countsByKey(Topics.JOB_REQUESTS, w.root(), requests)).isEqualTo(requests);
        Map<String, Integer> budgets = new TreeMap<>();
        for (String path : List.of("", "A", "A/team", "A/old", "B", "B/team")) {
            budgets.put(w.path(path), 1);
        }
        budgets.put(w.path("A/new"), 0);
        assertThat(TestLog.countsByKey(Topics.BUDGETS, w.root(), budgets)).isEqualTo(budgets);
        List<ConsumerRecord<String, JobRequest>> mine = TestLog.read(Topics.JOB_REQUESTS,
                key -> key.equals(w.root() + "-self") || key.equals(w.miasJob()), seen -> seen.size() >= 3);
        assertThat(mine).extracting(r -> r.value().getPayload())
                .anySatisfy(p -> assertThat(p).isInstanceOfSatisfying(JobSubmitted.class,
                        j -> assertThat(j.getSubmitter()).isEqualTo("mia")))
                .anySatisfy(p -> assertThat(p).isInstanceOfSatisfying(JobCancelRequested.class,
                        c -> assertThat(c.getRequestedBy()).isEqualTo("olga")));
    }

    /** A caller's tree (defined by an admin) with two jobs of the team's members. */
    private static World world(String root, String caller) {
        String group = root + "-g";
        Api.asAdmin().contentType(ContentType.JSON).body("{\"share\":1,\"owners\":[\"anna\"]}")
                .put("/budgets/" + root).then().statusCode(200);
        World w = new World(caller, tokenOf(caller, group), root, group, root + "-mia", root + "-max");
        Map<String, String> setup = new LinkedHashMap<>();
        setup.put("A", "{\"share\":1,\"owners\":[\"olga\"]}");
        setup.put("A/team", "{\"share\":1,\"members\":[\"group:" + group + "\"]}");
        setup.put("A/old", "{\"share\":1}");
        setup.put("B", "{\"share\":1,\"owners\":[\"sam\"]}");
        setup.put("B/team", "{\"share\":1,\"members\":[\"otto\"]}");
        setup.forEach((path, body) -> Api.asAdmin().contentType(ContentType.JSON).body(body)
                .put("/budgets/" + w.path(path)).then().statusCode(200));
        Api.as("mia", group).contentType(ContentType.JSON).body(job(w.path("A/team"), w.miasJob()))
                .post("/jobs").then().statusCode(202);
        Api.as("max", group).contentType(ContentType.JSON).body(job(w.path("A/team"), w.maxsJob()))
                .post("/jobs").then().statusCode(202);
        return w;
    }

    private static String tokenOf(String caller, String group) {
        return switch (caller) {
            case "anonymous" -> null;
            case "member" -> TestTokens.user("mia", group);
            case "otherMember" -> TestTokens.user("otto");
            case "owner" -> TestTokens.user("olga");
            case "ancestorOwner" -> TestTokens.user("anna");
            case "siblingOwner" -> TestTokens.user("sam");
            case "operator" -> TestTokens.operator();
            case "admin" -> TestTokens.admin();
            default -> throw new IllegalArgumentException(caller);
        };
    }

    private static RequestSpecification send(World w) {
        return w.token() == null ? given() : given().auth().oauth2(w.token());
    }

    private static int put(World w, String path, String body) {
        return send(w).contentType(ContentType.JSON).body(body).put("/budgets/" + path).statusCode();
    }

    private static String job(String budget, String id) {
        return "{\"id\":\"" + id + "\",\"budget\":\"" + budget + "\",\"cluster\":\"" + CLUSTER + "\",\"replicas\":1,"
                + "\"gpusPerReplica\":1,\"minRuntimeSeconds\":0,\"command\":[\"true\"]}";
    }

    private static void expect(Map<String, Integer> counts, String key, int count) {
        counts.put(key, count);
    }
}
