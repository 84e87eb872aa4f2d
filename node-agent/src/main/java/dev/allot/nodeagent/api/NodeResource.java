package dev.allot.nodeagent.api;

import dev.allot.nodeagent.AgentRuntime;
import dev.allot.nodeagent.NodeAgent;
import dev.allot.nodeagent.auth.AgentCaller;
import jakarta.inject.Inject;
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
 * The nodes this agent hosts, and the operator's drain switch for them (an operator's or admin's token, or the
 * agent API secret: see AgentAuthentication):
 * {@code POST /nodes/{id}/drain?requestedBy=&reason=} publishes NodeDrainRequested,
 * {@code POST /nodes/{id}/undrain?requestedBy=} publishes NodeUndrained (both 202; 404 for a node not hosted here).
 */
@Path("/nodes")
@Produces(MediaType.APPLICATION_JSON)
public class NodeResource {

    @Inject
    AgentRuntime runtime;

    @Inject
    AgentCaller caller;

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
                          @QueryParam("requestedBy") String requestedBy,
                          @QueryParam("reason") String reason) {
        Response refused = claimed(requestedBy);
        if (refused != null) {
            return refused;
        }
        requestedBy = who(requestedBy);
        NodeAgent agent = runtime.agent();
        return agent != null && agent.requestDrain(nodeId, requestedBy, reason)
                ? Response.accepted(Map.of("nodeId", nodeId, "drain", "requested")).build()
                : notHosted(nodeId);
    }

    @POST
    @Path("/{id}/undrain")
    public Response undrain(@PathParam("id") String nodeId,
                            @QueryParam("requestedBy") String requestedBy) {
        Response refused = claimed(requestedBy);
        if (refused != null) {
            return refused;
        }
        requestedBy = who(requestedBy);
        NodeAgent agent = runtime.agent();
        return agent != null && agent.requestUndrain(nodeId, requestedBy)
                ? Response.accepted(Map.of("nodeId", nodeId, "drain", "lifted")).build()
                : notHosted(nodeId);
    }

    /**
     * A person's drain is recorded under their token's name: {@code requestedBy} naming someone else is refused
     * (400). The service (agent API secret) relays whoever it names.
     */
    private Response claimed(String requestedBy) {
        if (caller.kind() == AgentCaller.Kind.OPERATOR && requestedBy != null && !requestedBy.isBlank()
                && !requestedBy.equals(caller.name())) {
            return Response.status(Response.Status.BAD_REQUEST).entity(Map.of("status", 400, "field", "requestedBy",
                    "message", "requestedBy '" + requestedBy + "' is not the authenticated principal '" + caller.name()
                            + "': the token's name is recorded")).build();
        }
        return null;
    }

    private String who(String requestedBy) {
        if (caller.kind() == AgentCaller.Kind.OPERATOR) {
            return caller.name();
        }
        return requestedBy == null || requestedBy.isBlank() ? "operator" : requestedBy;
    }

    private static Response notHosted(String nodeId) {
        return Response.status(Response.Status.NOT_FOUND)
                .entity(Map.of("error", "node " + nodeId + " is not hosted by this agent")).build();
    }
}
