package dev.allot.nodeagent.api;

import dev.allot.nodeagent.AgentRuntime;
import dev.allot.nodeagent.NodeAgent;
import jakarta.inject.Inject;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.List;
import java.util.Map;

/**
 * The nodes this agent hosts, and the operator's drain switch for them:
 * {@code POST /nodes/{id}/drain?requestedBy=&reason=} publishes NodeDrainRequested,
 * {@code POST /nodes/{id}/undrain?requestedBy=} publishes NodeUndrained (both 202; 404 for a node not hosted here).
 */
@Path("/nodes")
@Produces(MediaType.APPLICATION_JSON)
public class NodeResource {

    @Inject
    AgentRuntime runtime;

    public record NodeView(String nodeId, String cluster, long epoch, int gpus, String gpuModel, List<String> runningJobs) {
    }

    @GET
    public List<NodeView> nodes() {
        NodeAgent agent = runtime.agent();
        if (agent == null) {
            return List.of();
        }
        return agent.nodes().stream().map(n -> new NodeView(n.nodeId(), n.cluster(), n.epoch(), n.gpuCount(),
                n.backend().model(), agent.runningJobs(n.nodeId()))).toList();
    }

    @POST
    @Path("/{id}/drain")
    public Response drain(@PathParam("id") String nodeId,
                          @QueryParam("requestedBy") @DefaultValue("operator") String requestedBy,
                          @QueryParam("reason") String reason) {
        NodeAgent agent = runtime.agent();
        return agent != null && agent.requestDrain(nodeId, requestedBy, reason)
                ? Response.accepted(Map.of("nodeId", nodeId, "drain", "requested")).build()
                : notHosted(nodeId);
    }

    @POST
    @Path("/{id}/undrain")
    public Response undrain(@PathParam("id") String nodeId,
                            @QueryParam("requestedBy") @DefaultValue("operator") String requestedBy) {
        NodeAgent agent = runtime.agent();
        return agent != null && agent.requestUndrain(nodeId, requestedBy)
                ? Response.accepted(Map.of("nodeId", nodeId, "drain", "lifted")).build()
                : notHosted(nodeId);
    }

    private static Response notHosted(String nodeId) {
        return Response.status(Response.Status.NOT_FOUND)
                .entity(Map.of("error", "node " + nodeId + " is not hosted by this agent")).build();
    }
}
