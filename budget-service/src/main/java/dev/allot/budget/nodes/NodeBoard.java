package dev.allot.budget.nodes;

import dev.allot.schemas.NodeDrainRequested;
import dev.allot.schemas.NodeDrained;
import dev.allot.schemas.NodeHeartbeat;
import dev.allot.schemas.NodeRegistered;
import dev.allot.schemas.NodeStatus;
import dev.allot.schemas.NodeUndrained;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Every node the log has registered, as node-status tells it: registration (cluster, GPUs, model,
 * epoch), the latest heartbeat, and the drain state (requested by whom and why, drained once the
 * scheduler says the node is empty, lifted by an undrain).
 */
public final class NodeBoard {

    /** A drain in force: who asked, why, when, and whether the scheduler reported the node empty. */
    public record Drain(String requestedBy, String reason, Instant requestedAt, Instant drainedAt) {
    }

    /** One node as of its latest node-status record. */
    public record Node(String nodeId, String cluster, int gpus, String gpuModel, long epoch, String agentId,
                       String apiUrl, Instant registeredAt, Instant lastHeartbeatAt, List<String> runningJobs,
                       Double meanGpuUtilisation, Drain drain) {

        Node heartbeat(Instant at, NodeHeartbeat h) {
            return new Node(nodeId, cluster, gpus, gpuModel, epoch, agentId, apiUrl, registeredAt, at,
                    List.copyOf(h.getRunningJobs()), h.getMeanGpuUtilisation(), drain);
        }

        Node drain(Drain d) {
            return new Node(nodeId, cluster, gpus, gpuModel, epoch, agentId, apiUrl, registeredAt, lastHeartbeatAt,
                    runningJobs, meanGpuUtilisation, d);
        }
    }

    private final Map<String, Node> nodes = new ConcurrentHashMap<>();

    public void apply(NodeStatus status) {
        String id = status.getNodeId();
        Instant at = status.getOccurredAt();
        switch (status.getPayload()) {
            case NodeRegistered r -> nodes.merge(id,
                    new Node(id, r.getCluster(), r.getGpuCount(), r.getGpuModel(), r.getEpoch(), r.getAgentId(),
                            r.getApiUrl(), at, null, List.of(), null, null),
                    // a re-registration keeps the drain: an operator's drain outlives an agent restart
                    (old, fresh) -> fresh.drain(old.drain()));
            case NodeHeartbeat h -> nodes.computeIfPresent(id, (k, node) -> node.heartbeat(at, h));
            case NodeDrainRequested d -> nodes.computeIfPresent(id, (k, node) ->
                    node.drain(new Drain(d.getRequestedBy(), d.getReason(), at, null)));
            case NodeDrained d -> nodes.computeIfPresent(id, (k, node) -> node.drain() == null ? node
                    : node.drain(new Drain(node.drain().requestedBy(), node.drain().reason(),
                            node.drain().requestedAt(), at)));
            case NodeUndrained u -> nodes.computeIfPresent(id, (k, node) -> node.drain(null));
            default -> {
                // a payload type this service does not know yet: nothing to show
            }
        }
    }

    public Optional<Node> find(String nodeId) {
        return Optional.ofNullable(nodes.get(nodeId));
    }

    public Collection<Node> all() {
        return nodes.values();
    }
}
