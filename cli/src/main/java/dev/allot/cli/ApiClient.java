package dev.allot.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/**
 * Every HTTP call of the CLI goes through here: the budget-service's public API at {@code --server}.
 * Sends the bearer token when there is one, and the user's name in {@code X-Allot-User} /
 * {@code X-Allot-Submitter} when it is claimed (see {@code Globals.api}). Maps the answers to exit codes:
 * 400 = bad usage (2), other 4xx = refused (1), no answer or 502/503/504 = unreachable (3).
 */
public final class ApiClient {

    static final ObjectMapper JSON = new ObjectMapper();

    private final String server;
    private final Optional<String> token;
    private final String user;
    private final boolean claimUser;
    private final HttpClient http;

    /** @param claimUser whether the requests name {@code user} in their headers (the API refuses a name not the token's) */
    public ApiClient(String server, Optional<String> token, String user, boolean claimUser) {
        this.server = server.endsWith("/") ? server.substring(0, server.length() - 1) : server;
        this.token = token;
        this.user = user;
        this.claimUser = claimUser;
        this.http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(3)).build();
    }

    public String server() {
        return server;
    }

    public String user() {
        return user;
    }

    public JsonNode get(String path) {
        return send("GET", path, null);
    }

    public JsonNode post(String path, Object body) {
        return send("POST", path, body);
    }

    public JsonNode delete(String path) {
        return send("DELETE", path, null);
    }

    /** A path segment or query value, percent-encoded ('/' kept in budget paths). */
    public static String encode(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8).replace("+", "%20").replace("%2F", "/");
    }

    /** {@code ?a=1&b=2} of the non-null values, or "". */
    public static String query(Map<String, ?> params) {
        StringBuilder q = new StringBuilder();
        params.forEach((k, v) -> {
            if (v != null) {
                q.append(q.isEmpty() ? '?' : '&').append(k).append('=').append(encode(String.valueOf(v)));
            }
        });
        return q.toString();
    }

    private JsonNode send(String method, String path, Object body) {
        URI uri;
        try {
            uri = URI.create(server + path);
        } catch (IllegalArgumentException e) {
            throw CliFailure.usage("--server '" + server + "' is not a URL (" + e.getMessage()
                    + "); e.g. --server http://127.0.0.1:8081");
        }
        HttpRequest.Builder request = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(15))
                .header("Accept", "application/json");
        if (claimUser) {
            request.header("X-Allot-User", user).header("X-Allot-Submitter", user);
        }
        token.ifPresent(t -> request.header("Authorization", "Bearer " + t));
        try {
            if (body == null) {
                request.method(method, HttpRequest.BodyPublishers.noBody());
            } else {
                request.header("Content-Type", "application/json")
                        .method(method, HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body)));
            }
            HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
            return answer(method, path, response.statusCode(), response.body());
        } catch (IOException e) {
            throw new CliFailure(CliFailure.UNREACHABLE, "cannot reach the Allot API at " + server + " ("
                    + (e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage())
                    + "): start it with 'bin/allot up', or point --server (or ALLOT_SERVER) at it");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CliFailure(CliFailure.UNREACHABLE, "interrupted");
        } catch (IllegalArgumentException e) {
            throw CliFailure.usage("--server '" + server + "' is not usable: " + e.getMessage());
        }
    }

    private JsonNode answer(String method, String path, int status, String text) {
        JsonNode json = null;
        try {
            json = text == null || text.isBlank() ? JSON.createObjectNode() : JSON.readTree(text);
        } catch (IOException notJson) {
            // an error page from a proxy, say: reported as text below
        }
        if (status >= 200 && status < 300 && json != null) {
            return json;
        }
        String field = json == null ? null : json.path("field").asText(null);
        String message = json == null ? text : json.path("message").asText(json.path("error").asText(text));
        String what = method + " " + path + " answered " + status
                + (field == null ? "" : ", field '" + field + "'") + ": " + message;
        if (status == 400) {
            throw CliFailure.usage(what);
        }
        if (status == 401 || status == 403) {
            throw CliFailure.refused(what + " (log in with 'bin/allot login', or pass --token / ALLOT_TOKEN)");
        }
        if (status == 502 || status == 503 || status == 504 || status >= 500 && json == null) {
            throw new CliFailure(CliFailure.UNREACHABLE, what + " (the service or Kafka behind it is not answering;"
                    + " retry, or check 'bin/allot status')");
        }
        throw CliFailure.refused(what);
    }
}
