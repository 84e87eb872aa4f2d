package dev.allot.budget.api;

import dev.allot.budget.LogView;
import dev.allot.budget.auth.AccessPolicy;
import dev.allot.budget.auth.Authentication;
import dev.allot.budget.auth.Caller;
import dev.allot.budget.kafka.EventPublisher;
import dev.allot.budget.kafka.WriteDeadline;
import dev.allot.budget.kafka.KafkaSettings;
import dev.allot.budget.kafka.LogProjector;
import dev.allot.budget.nodes.NodeBoard;
import dev.allot.budget.tree.Violation;
import dev.allot.schemas.NodeDrainRequested;
import dev.allot.schemas.NodeStatus;
import dev.allot.schemas.NodeUndrained;
import dev.allot.schemas.catalogue.Topics;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/**
 * The nodes of every cluster as node-status tells them (GPUs, heartbeat, drain state, GPUs used by
 * running jobs), and the operators' drain switch. A drain or undrain is written as
 * {@code NodeDrainRequested} / {@code NodeUndrained} on node-status, keyed by the node, exactly as the
 * node agent's own port writes it: the scheduler-service drains and reports {@code NodeDrained}. The
 * answer (202) waits until this instance's projection applied the record, so the next GET shows it.
 */
@Path("/nodes")
@Produces(MediaType.APPLICATION_JSON)
@Tag(name = "nodes")
public class NodeResource {

    static final String USER_HEADER = "X-Allot-User";

    @Inject
    LogView view;

    @Inject
    Authentication authentication;

    @Inject
    LogProjector projector;

    @Inject
    EventPublisher publisher;

    @Inject
    KafkaSettings settings;

    /**
     * The scheduler's allot.scheduler.lost-after: a node silent longer is shown as lost, one silent for a third
     * of it as unreachable (no new work goes there).
     */
    @ConfigProperty(name = "allot.budget.node-lost-after", defaultValue = "30s")
    Duration lostAfter;

    @GET
    @Operation(summary = "Nodes with GPUs total / used / free, heartbeat age, drain state and running jobs")
    public Map<String, Object> nodes(@QueryParam("cluster") String cluster) {
        Map<String, Map<String, Integer>> used = usedGpus();
        Instant now = Instant.now();
        List<Map<String, Object>> nodes = view.nodes().all().stream()
                .filter(n -> cluster == null || cluster.equals(n.cluster()))
                .sorted(Comparator.comparing(NodeBoard.Node::cluster).thenComparing(NodeBoard.Node::nodeId))
                .map(n -> render(n, used.getOrDefault(n.nodeId(), Map.of()), now))
                .toList();
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("at", now.toString());
        body.put("lostAfterSeconds", lostAfter.toSeconds());
        body.put("nodes", nodes);
        return body;
    }

    @GET
    @Path("/{id}")
    @Operation(summary = "One node")
    public Map<String, Object> node(@PathParam("id") String id) {
        NodeBoard.Node node = known(id);
        return render(node, usedGpus().getOrDefault(id, Map.of()), Instant.now());
    }

    @POST
    @Path("/{id}/drain")
    @Operation(summary = "Drain a node (NodeDrainRequested): no new placements; its jobs are released as their"
            + " contracts allow; the scheduler reports NodeDrained once it is empty")
    public Response drain(@PathParam("id") String id, @HeaderParam(USER_HEADER) String user,
                          @QueryParam("reason") String reason) {
        String by = operator(user);
        NodeBoard.Node node = known(id);
        write(id, NodeDrainRequested.newBuilder().setCluster(node.cluster()).setRequestedBy(by)
                .setReason(reason == null || reason.isBlank() ? null : reason).build());
        return Response.accepted(node(id)).build();
    }

    @POST
    @Path("/{id}/undrain")
    @Operation(summary = "Lift a drain (NodeUndrained): the node takes new work again")
    public Response undrain(@PathParam("id") String id, @HeaderParam(USER_HEADER) String user) {
        String by = operator(user);
        NodeBoard.Node node = known(id);
        write(id, NodeUndrained.newBuilder().setCluster(node.cluster()).setRequestedBy(by).build());
        return Response.accepted(node(id)).build();
    }

    private NodeBoard.Node known(String id) {
        return view.nodes().find(id).orElseThrow(() -> new ApiException(Violation.notFound("id",
                "unknown node '" + id + "': no node-agent registered it; 'allot nodes' lists the known ones")));
    }

    /** Drains are the operators' (and admins'): the token's name is recorded; a header naming someone else is refused. */
    private String operator(String user) {
        Caller caller = authentication.caller();
        AccessPolicy.mayDrain(caller).ifPresent(ApiException::raise);
        AccessPolicy.claimedName(caller, USER_HEADER, user).ifPresent(ApiException::raise);
        return caller.name();
    }

    private void write(String nodeId, Object payload) {
        NodeStatus status = NodeStatus.newBuilder().setEventId(UUID.randomUUID().toString())
                .setOccurredAt(Instant.now()).setNodeId(nodeId).setPayload(payload).build();
        WriteDeadline deadline = WriteDeadline.after(settings.writeTimeout());
        RecordMetadata acked;
        try {
            acked = publisher.publish(Topics.NODE_STATUS, nodeId, status)
                    .get(deadline.remainingMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ApiException(new Violation(503, "id", "interrupted"));
        } catch (Exception e) {
            throw new ApiException(new Violation(503, "id", "Kafka did not acknowledge the request within "
                    + settings.writeTimeout() + ": " + EventPublisher.reason(e)));
        }
        // read-your-writes: the answer shows the drain state the log now holds
        projector.awaitApplied(acked.topic(), acked.partition(), acked.offset(), deadline.remaining());
    }

    /** GPUs held by running jobs, per node and job, from their current placements. */
    private Map<String, Map<String, Integer>> usedGpus() {
        Map<String, Map<String, Integer>> used = new HashMap<>();
        view.jobs().wholeRecords().forEach(job -> job.gpusByNode().forEach((node, gpus) ->
                used.computeIfAbsent(node, n -> new LinkedHashMap<>()).put(job.id(), gpus)));
        return used;
    }

    private Map<String, Object> render(NodeBoard.Node n, Map<String, Integer> jobs, Instant now) {
        int usedGpus = jobs.values().stream().mapToInt(Integer::intValue).sum();
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("nodeId", n.nodeId());
        body.put("cluster", n.cluster());
        body.put("gpus", n.gpus());
        body.put("gpuModel", n.gpuModel());
        body.put("usedGpus", usedGpus);
        body.put("freeGpus", Math.max(0, n.gpus() - usedGpus));
        body.put("jobs", jobs);
        body.put("runningJobs", n.runningJobs());
        body.put("epoch", n.epoch());
        body.put("agentId", n.agentId());
        body.put("registeredAt", n.registeredAt().toString());
        body.put("lastHeartbeatAt", n.lastHeartbeatAt() == null ? null : n.lastHeartbeatAt().toString());
        Instant heard = n.lastHeartbeatAt() == null ? n.registeredAt() : n.lastHeartbeatAt();
        Duration silent = Duration.between(heard, now);
        boolean lost = silent.compareTo(lostAfter) > 0;
        // the scheduler's rule: silent for a third of lost-after, it takes no new work (its jobs run on)
        boolean unreachable = !lost && silent.compareTo(lostAfter.dividedBy(3)) > 0;
        body.put("meanGpuUtilisation", n.meanGpuUtilisation());
        String state = lost ? "LOST" : unreachable ? "UNREACHABLE"
                : n.drain() == null ? "UP" : n.drain().drainedAt() == null ? "DRAINING" : "DRAINED";
        body.put("state", state);
        body.put("lost", lost);
        body.put("unreachable", unreachable);
        body.put("draining", n.drain() != null);
        if (n.drain() != null) {
            Map<String, Object> drain = new LinkedHashMap<>();
            drain.put("requestedBy", n.drain().requestedBy());
            drain.put("reason", n.drain().reason());
            drain.put("requestedAt", n.drain().requestedAt().toString());
            drain.put("drainedAt", n.drain().drainedAt() == null ? null : n.drain().drainedAt().toString());
            body.put("drain", drain);
        } else {
            body.put("drain", null);
        }
        return body;
    }
}
