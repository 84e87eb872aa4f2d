package dev.allot.nodeagent.api;

import dev.allot.nodeagent.AgentRuntime;
import dev.allot.nodeagent.NodeAgent;
import jakarta.inject.Inject;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A replica's output as this agent wrote it ({@code <state-dir>/logs/<job>.r<i>.log}), read from a byte
 * offset: {@code GET /jobs/{id}/log?replica=0&offset=0&limit=65536} →
 * {@code {jobId, replica, offset, nextOffset, size, more, text}}. The text ends on a whole UTF-8
 * character; {@code nextOffset} is where the next read starts. The public API proxies this for users.
 */
@Path("/jobs/{id}/log")
@Produces(MediaType.APPLICATION_JSON)
public class LogResource {

    static final int MAX_LIMIT = 1 << 20;

    @Inject
    AgentRuntime runtime;

    @GET
    public Response log(@PathParam("id") String jobId, @QueryParam("replica") @DefaultValue("0") int replica,
                        @QueryParam("offset") @DefaultValue("0") long offset,
                        @QueryParam("limit") @DefaultValue("65536") int limit) {
        NodeAgent agent = runtime.agent();
        if (agent == null || replica < 0 || offset < 0 || limit < 1 || limit > MAX_LIMIT) {
            return error(Response.Status.BAD_REQUEST, agent == null ? "agent starting" : replica < 0 ? "replica"
                    : offset < 0 ? "offset" : "limit", "replica >= 0, offset >= 0 and 1 <= limit <= " + MAX_LIMIT);
        }
        java.nio.file.Path file = agent.logFile(jobId, replica);
        if (!Files.isRegularFile(file)) {
            return error(Response.Status.NOT_FOUND, "id", "no output of job " + jobId + " replica " + replica
                    + " on this agent");
        }
        try (RandomAccessFile in = new RandomAccessFile(file.toFile(), "r")) {
            long size = in.length();
            long from = Math.min(offset, size);
            byte[] bytes = new byte[(int) Math.min(limit, size - from)];
            in.seek(from);
            in.readFully(bytes);
            int whole = wholeCharacters(bytes, from + bytes.length < size);
            Map<String, Object> body = new LinkedHashMap<>();
            body.put("jobId", jobId);
            body.put("replica", replica);
            body.put("offset", from);
            body.put("nextOffset", from + whole);
            body.put("size", size);
            body.put("more", from + whole < size);
            body.put("text", new String(bytes, 0, whole, StandardCharsets.UTF_8));
            return Response.ok(body).build();
        } catch (IOException e) {
            return error(Response.Status.INTERNAL_SERVER_ERROR, "id", "cannot read " + file + ": " + e.getMessage());
        }
    }

    /** How many leading bytes end on a whole UTF-8 character (a cut multi-byte character waits for the next read). */
    static int wholeCharacters(byte[] bytes, boolean truncated) {
        int n = bytes.length;
        if (!truncated || n == 0) {
            return n;
        }
        int i = n - 1;
        int back = 0;
        while (i >= 0 && back < 3 && (bytes[i] & 0xC0) == 0x80) {
            i--;
            back++;
        }
        if (i < 0) {
            return n;
        }
        int lead = bytes[i] & 0xFF;
        int length = lead < 0x80 ? 1 : lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
        return i + length <= n ? n : i;
    }

    private static Response error(Response.Status status, String field, String message) {
        return Response.status(status).entity(Map.of("status", status.getStatusCode(), "field", field,
                "message", message)).build();
    }
}
