package dev.allot.budget;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.allot.schemas.catalogue.Topics;
import dev.allot.testsupport.AllotInfraTestResource;
import dev.allot.testsupport.TestTokens;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import java.io.ByteArrayInputStream;
import java.net.URI;
import java.net.URL;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Input a new user might try, sent as written (java.net.http does not normalise paths, RestAssured's client
 * would): each refused with a 4xx in the API's JSON error shape naming the field, and nothing in the log.
 */
@QuarkusTest
@QuarkusTestResource(value = AllotInfraTestResource.class, restrictToAnnotatedClass = false)
class InputRefusalTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    /** HTTP/1.1: over h2c a 9 KB URI is refused by HTTP/2's header list limit (431) before the API sees it. */
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @TestHTTPResource("/")
    URL base;

    private record Answer(int status, JsonNode body) {
    }

    private Answer send(String method, String rawPath, String contentType, HttpRequest.BodyPublisher body) {
        try {
            HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(base.toString().replaceAll("/$", "") + rawPath))
                    .timeout(Duration.ofSeconds(10)).header("Authorization", "Bearer " + TestTokens.admin())
                    .method(method, body);
            if (contentType != null) {
                request.header("Content-Type", contentType);
            }
            HttpResponse<String> response = HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
            return new Answer(response.statusCode(), JSON.readTree(response.body()));
        } catch (Exception e) {
            throw new IllegalStateException(method + " " + rawPath, e);
        }
    }

    private Answer send(String method, String rawPath, String json) {
        return send(method, rawPath, "application/json", json == null ? HttpRequest.BodyPublishers.noBody()
                : HttpRequest.BodyPublishers.ofString(json));
    }

    private static void assertRefused(Answer answer, int status, String field) {
        assertThat(answer.status()).as(answer.body().toString()).isEqualTo(status);
        assertThat(answer.body().path("status").asInt()).isEqualTo(status);
        assertThat(answer.body().path("field").asText()).isEqualTo(field);
        assertThat(answer.body().path("message").asText()).isNotBlank();
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "dot-dot            | /budgets/{org}/../{org}evil",
            "encoded dot-dot    | /budgets/{org}/%2E%2E/{org}evil",
            "lower-case encoded | /budgets/{org}/%2e%2e/{org}evil",
            "dot segment        | /budgets/{org}/./{org}evil",
            "encoded separator  | /budgets/{org}%2F{org}evil",
            "empty segment      | /budgets/{org}//{org}evil",
            "trailing slash     | /budgets/{org}evil/",
    })
    void givenAPathThatMeansSomethingElseOnceNormalised_whenItIsPut_then400NamingThePath_andNothingIsWritten(
            String name, String path) {
        String org = TestLog.uniquePrefix();
        assertThat(send("PUT", "/budgets/" + org, "{\"share\":1}").status()).isEqualTo(200);

        assertRefused(send("PUT", path.replace("{org}", org), "{\"share\":1}"), 400, "path");
        assertRefused(send("DELETE", path.replace("{org}", org), null), 400, "path");

        Map<String, Integer> expected = new TreeMap<>(Map.of(org, 1, org + "evil", 0, org + "/" + org + "evil", 0));
        assertThat(TestLog.countsByKey(Topics.BUDGETS, org, expected)).isEqualTo(expected);
    }

    @ParameterizedTest(name = "share {0}")
    @CsvSource({"1e308, 400", "1e-320, 400", "1000001, 400", "9e-7, 400", "1e6, 200", "1e-6, 200"})
    void givenAShare_whenItIsOutsideTheBounds_then400NamingTheShare(String share, int status) {
        // beneath a root of its own: a root of share 1e6 would shrink every other test's roots to ~1e-6
        String org = TestLog.uniquePrefix();
        assertThat(send("PUT", "/budgets/" + org, "{\"share\":1}").status()).isEqualTo(200);
        Answer answer = send("PUT", "/budgets/" + org + "/x", "{\"share\":" + share + "}");
        if (status == 200) {
            assertThat(answer.status()).isEqualTo(200);
        } else {
            assertRefused(answer, 400, "share");
            Map<String, Integer> expected = new TreeMap<>(Map.of(org, 1, org + "/x", 0));
            assertThat(TestLog.countsByKey(Topics.BUDGETS, org, expected)).isEqualTo(expected);
        }
    }

    @Test
    void givenSubmissionsOverTheLimits_whenTheyArePosted_then413Or400NamingTheField_andNothingIsWritten() {
        String org = TestLog.uniquePrefix();
        String team = org + "/team";
        send("PUT", "/budgets/" + org, "{\"share\":1}");
        send("PUT", "/budgets/" + team, "{\"share\":1}");
        Api.nodeOf("local");
        String huge = "x".repeat(900 * 1024);
        String big = "x".repeat(40 * 1024);

        // a 900 KB command: over the body limit, declared (Content-Length) and chunked
        assertRefused(send("POST", "/jobs", job(org + "-a", team, "[\"echo\",\"" + huge + "\"]", "{}")), 413, "body");
        assertRefused(send("POST", "/jobs", "application/json", HttpRequest.BodyPublishers.ofInputStream(() ->
                new ByteArrayInputStream(job(org + "-b", team, "[\"echo\",\"" + huge + "\"]", "{}")
                        .getBytes(StandardCharsets.UTF_8)))), 413, "body");
        // within the body limit, over the command's and env's own
        assertRefused(send("POST", "/jobs", job(org + "-c", team, "[\"echo\",\"" + big + "\"]", "{}")), 400, "command");
        assertRefused(send("POST", "/jobs", job(org + "-d", team, "[" + "\"a\",".repeat(1100) + "\"a\"]", "{}")),
                400, "command");
        assertRefused(send("POST", "/jobs", job(org + "-e", team, "[\"true\"]", "{\"BIG\":\"" + big + "\"}")), 400, "env");
        assertRefused(send("POST", "/jobs", job(org + "-f", team, "[\"true\"]", "{\"CUDA_VISIBLE_DEVICES\":\"0,1\"}")),
                400, "env");
        assertRefused(send("POST", "/jobs", job(org + "-g", team, "[\"true\"]", "{\"ALLOT_JOB_TOKEN\":\"x\"}")), 400, "env");
        assertRefused(send("POST", "/jobs", job(org + "-h", team, "[\"true\"]", "{\"1X\":\"y\"}")), 400, "env");
        // a cluster no node is known of: no scheduler would ever place it
        assertRefused(send("POST", "/jobs", job(org + "-i", team, "[\"true\"]", "{}")
                .replace("\"cluster\":\"local\"", "\"cluster\":\"" + org + "-nowhere\"")), 422, "cluster");
        // a cancel reason over its limit
        assertThat(send("POST", "/jobs", job(org + "-ok", team, "[\"true\"]", "{}")).status()).isEqualTo(202);
        assertRefused(send("DELETE", "/jobs/" + org + "-ok?reason=" + "r".repeat(2000), null), 400, "reason");

        Map<String, Integer> expected = new TreeMap<>(Map.of(org + "-ok", 1));
        for (String suffix : "abcdefghi".split("")) {
            expected.put(org + "-" + suffix, 0);
        }
        assertThat(TestLog.countsByKey(Topics.JOB_REQUESTS, org, expected)).isEqualTo(expected);
    }

    @Test
    void givenRequestsTheFrameworkRefuses_whenTheyAreSent_thenEachAnswersInTheApisJsonErrorShape() {
        assertRefused(send("GET", "/nowhere", null), 404, "path");
        assertRefused(send("GET", "/budgets-and-more/x", null), 404, "path");
        assertRefused(send("POST", "/queue?cluster=local", "{}"), 405, "method");
        assertRefused(send("PUT", "/budgets/" + TestLog.uniquePrefix(), "text/plain",
                HttpRequest.BodyPublishers.ofString("share=1")), 415, "Content-Type");
        assertRefused(send("GET", "/jobs?budget=" + "b".repeat(9000), null), 414, "path");
        assertRefused(send("GET", "/jobs?limit=abc", null), 400, "limit");
        assertRefused(send("GET", "/jobs?limit=0", null), 400, "limit");
    }

    private static String job(String id, String budget, String command, String env) {
        return "{\"id\":\"" + id + "\",\"budget\":\"" + budget + "\",\"cluster\":\"local\",\"replicas\":1,"
                + "\"gpusPerReplica\":1,\"minRuntimeSeconds\":0,\"command\":" + command + ",\"env\":" + env + "}";
    }
}
