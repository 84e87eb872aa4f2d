package dev.allot.nodeagent.api;

import dev.allot.nodeagent.AgentRuntime;
import dev.allot.nodeagent.NodeAgent;
import jakarta.inject.Inject;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Response;
import java.util.Map;

/**
 * The callback a job uses to say it checkpointed: {@code POST /jobs/{id}/checkpoint[?replica=N][&location=...]}
 * (the same as touching {@code $ALLOT_CHECKPOINT_DIR/checkpoint}). 202 when reported, 404 when the job does not
 * run on this agent.
 */
@Path("/jobs/{id}/checkpoint")
public class CheckpointResource {

    @Inject
    AgentRuntime runtime;

    @POST
    public Response checkpoint(@PathParam("id") String jobId, @QueryParam("replica") Integer replica,
                               @QueryParam("location") String location) {
        NodeAgent agent = runtime.agent();
        int reported = agent == null ? 0 : agent.checkpointCallback(jobId, replica, location);
        if (reported == 0) {
            return Response.status(Response.Status.NOT_FOUND)
                    .entity(Map.of("error", "job " + jobId + " has no running replica on this agent")).build();
        }
        return Response.accepted(Map.of("jobId", jobId, "replicasReported", reported)).build();
    }
}
