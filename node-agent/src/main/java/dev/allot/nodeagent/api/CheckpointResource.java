package dev.allot.nodeagent.api;

import dev.allot.nodeagent.AgentRuntime;
import dev.allot.nodeagent.NodeAgent;
import dev.allot.nodeagent.auth.AgentAuthentication;
import jakarta.inject.Inject;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.Response;
import java.util.Map;

/**
 * The callback a job uses to say it checkpointed: {@code POST /jobs/{id}/checkpoint[?replica=N][&location=...]}
 * with {@code Authorization: Bearer $ALLOT_JOB_TOKEN} (the same as touching {@code $ALLOT_CHECKPOINT_DIR/checkpoint};
 * {@code $ALLOT_CHECKPOINT_URL} is this URL for the replica). The token is the replica's own, given to it alone:
 * 202 when reported, 401 without a token, 403 with one that is not this job's (replica's), 404 when the job does
 * not run on this agent.
 */
@Path("/jobs/{id}/checkpoint")
public class CheckpointResource {

    @Inject
    AgentRuntime runtime;

    @POST
    public Response checkpoint(@PathParam("id") String jobId, @QueryParam("replica") Integer replica,
                               @QueryParam("location") String location,
                               @HeaderParam(HttpHeaders.AUTHORIZATION) String authorization) {
        String token = AgentAuthentication.bearer(authorization);
        if (token == null) {
            return Response.fromResponse(AgentAuthentication.error(Response.Status.UNAUTHORIZED,
                    "a job calls back with 'Authorization: Bearer $ALLOT_JOB_TOKEN'"))
                    .header(HttpHeaders.WWW_AUTHENTICATE, "Bearer").build();
        }
        NodeAgent agent = runtime.agent();
        NodeAgent.Callback outcome = agent == null ? NodeAgent.Callback.NOT_RUNNING
                : agent.checkpointCallback(jobId, replica, location, token);
        return switch (outcome) {
            case REPORTED -> Response.accepted(Map.of("jobId", jobId, "replicasReported", 1)).build();
            case NOT_ITS_TOKEN -> AgentAuthentication.error(Response.Status.FORBIDDEN, "this token is not job "
                    + jobId + (replica == null ? "" : " replica " + replica) + "'s: a job reports its own checkpoints");
            case NOT_RUNNING -> Response.status(Response.Status.NOT_FOUND)
                    .entity(Map.of("error", "job " + jobId + " has no running replica on this agent")).build();
        };
    }
}
