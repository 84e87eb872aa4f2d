package dev.allot.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.allot.testsupport.TestTokens;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;

/** The budget-service's public API, as a person's script would call it, with a bearer token (an admin's by default). */
final class AllotApi {

    private static final ObjectMapper JSON = new ObjectMapper();
    private final String baseUrl;
    private final String token;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    AllotApi(String baseUrl) {
        this(baseUrl, TestTokens.admin());
    }

    private AllotApi(String baseUrl, String token) {
        this.baseUrl = baseUrl;
        this.token = token;
    }

    /** The same API called as another user. */
    AllotApi as(String user, String... groups) {
        return new AllotApi(baseUrl, TestTokens.user(user, groups));
    }

    Response putBudget(String path, double share) {
        return send("PUT", "/budgets/" + path, Map.of("share", share));
    }

    /** Submits a job; returns its id (asserting 202). */
    String submit(Map<String, Object> job) {
        Response response = send("POST", "/jobs", job);
        if (response.status() != 202) {
            throw new IllegalStateException("POST /jobs answered " + response.status() + ": " + response.body());
        }
        return response.json().get("id").asText();
    }

    JsonNode job(String id) {
        return send("GET", "/jobs/" + id, null).json();
    }

    JsonNode history(String id) {
        return send("GET", "/jobs/" + id + "/history", null).json();
    }

    String state(String id) {
        Response response = send("GET", "/jobs/" + id, null);
        return response.status() == 200 ? response.json().path("state").asText() : "HTTP " + response.status();
    }

    /** GET /jobs with a query string ({@code state=COMPLETED&limit=10}). */
    JsonNode jobs(String query) {
        return send("GET", "/jobs?" + query, null).json();
    }

    JsonNode queue(String cluster) {
        return send("GET", "/queue?cluster=" + cluster, null).json();
    }

    /** GET of an absolute URL (another service's API), as JSON. */
    JsonNode json(String url) {
        try {
            return JSON.readTree(text(url));
        } catch (IOException e) {
            throw new IllegalStateException("GET " + url + " is not JSON", e);
        }
    }

    /** GET of an absolute URL without a token (a service's own /q endpoints), as text. */
    String text(String url) {
        try {
            HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(url))
                    .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() != 200) {
                throw new IllegalStateException("GET " + url + " answered " + response.statusCode() + ": "
                        + response.body());
            }
            return response.body();
        } catch (IOException e) {
            throw new IllegalStateException("GET " + url + " failed", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    JsonNode budgets() {
        return send("GET", "/budgets", null).json();
    }

    record Response(int status, String body) {
        JsonNode json() {
            try {
                return JSON.readTree(body);
            } catch (IOException e) {
                throw new IllegalStateException("not JSON: " + body, e);
            }
        }
    }

    Response send(String method, String path, Object body) {
        try {
            HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(baseUrl + path))
                    .timeout(Duration.ofSeconds(10)).header("Content-Type", "application/json")
                    .header("Authorization", "Bearer " + token);
            request.method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body)));
            HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
            return new Response(response.statusCode(), response.body());
        } catch (IOException e) {
            throw new IllegalStateException(method + " " + path + " failed", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
