package dev.allot.budget.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.allot.budget.LogView;
import dev.allot.budget.jobs.JobRecord;
import dev.allot.budget.nodes.AgentApiCredential;
import dev.allot.budget.nodes.NodeBoard;
import dev.allot.budget.tree.Violation;
import io.smallrye.common.annotation.Blocking;
import jakarta.inject.Inject;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/**
 * A job's output through the public API. The output stays where it is written, in the node agent's
 * log file of the replica; this reads it from the agent that hosts the replica's node (the node's
 * latest placement, the agent's URL from its NodeRegistered) and passes it on with the offset to read
 * from next. Nothing of it goes through Kafka: output is large, unstructured and read rarely.
 */
@Path("/jobs/{id}/logs")
@Produces(MediaType.APPLICATION_JSON)
@Tag(name = "jobs")
public class JobOutputResource {

    private static final ObjectMapper JSON = new ObjectMapper();
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    @Inject
    LogView view;

    @Inject
    AgentApiCredential credential;

    @Inject
    dev.allot.budget.auth.Authentication authentication;

    @GET
    @Blocking
    @Operation(summary = "A replica's output (stdout and stderr) from `offset` on, read from the node agent that ran"
            + " it: {jobId, replica, nodeId, offset, nextOffset, size, more, finished, text}")
    public Map<String, Object> output(@PathParam("id") String id, @QueryParam("replica") @DefaultValue("0") int replica,
                                      @QueryParam("offset") @DefaultValue("0") long offset) {
        JobRecord job = view.jobs().find(id)
                .orElseThrow(() -> new ApiException(Violation.notFound("id", "unknown job '" + id + "'")));
        dev.allot.budget.auth.AccessPolicy.mayReadOutput(authentication.caller(), view.tree(), job.budget(),
                job.submitter()).ifPresent(ApiException::raise);
        if (replica < 0 || offset < 0) {
            throw new ApiException(Violation.badRequest(replica < 0 ? "replica" : "offset",
                    "replica and offset must be >= 0"));
        }
        String nodeId = job.nodesByReplica().get(replica);
        if (nodeId == null) {
            throw new ApiException(Violation.conflict(job.nodesByReplica().isEmpty() ? "id" : "replica",
                    job.nodesByReplica().isEmpty() ? "job '" + id + "' has not been placed yet: no output"
                            : "job '" + id + "' has replicas " + job.nodesByReplica().keySet() + ", not " + replica));
        }
        NodeBoard.Node node = view.nodes().find(nodeId).orElse(null);
        if (node == null || node.apiUrl() == null) {
            throw new ApiException(new Violation(502, "id", "the agent of node " + nodeId
                    + " does not advertise an API URL (allot.agent.advertised-url), so its output cannot be read"));
        }
        JsonNode chunk = fetch(node.apiUrl() + "/jobs/" + URLEncoder.encode(id, StandardCharsets.UTF_8)
                + "/log?replica=" + replica + "&offset=" + offset, nodeId);
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("jobId", id);
        body.put("replica", replica);
        body.put("nodeId", nodeId);
        body.put("offset", chunk.path("offset").asLong());
        body.put("nextOffset", chunk.path("nextOffset").asLong());
        body.put("size", chunk.path("size").asLong());
        body.put("more", chunk.path("more").asBoolean());
        body.put("finished", job.isFinished());
        body.put("text", chunk.path("text").asText(""));
        return body;
    }

    private JsonNode fetch(String url, String nodeId) {
        try {
            HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10)).GET();
            credential.authorization().ifPresent(value -> request.header("Authorization", value));
            HttpResponse<String> answer = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
            if (answer.statusCode() == 401 || answer.statusCode() == 403) {
                throw new ApiException(new Violation(502, "id", "the agent of node " + nodeId + " refused this"
                        + " service's credential (" + answer.statusCode() + "): give both the same agent API secret"
                        + " (allot.agent-api.secret-file here, " + credential.file() + "; allot.agent.api-secret-file"
                        + " on the agent)"));
            }
            if (answer.statusCode() == 404) {
                throw new ApiException(Violation.notFound("id", "the agent of node " + nodeId
                        + " has no output of this job (not started there yet, or its state dir was cleaned)"));
            }
            if (answer.statusCode() != 200) {
                throw new ApiException(new Violation(502, "id", "the agent of node " + nodeId + " answered "
                        + answer.statusCode() + ": " + answer.body()));
            }
            return JSON.readTree(answer.body());
        } catch (IOException e) {
            throw new ApiException(new Violation(502, "id", "cannot reach the agent of node " + nodeId + " at " + url
                    + ": " + e.getMessage()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ApiException(new Violation(503, "id", "interrupted"));
        }
    }
}
