package dev.allot.budget.ui;

import dev.allot.schemas.NodeDrainRequested;
import dev.allot.schemas.NodeDrained;
import dev.allot.schemas.NodeHeartbeat;
import dev.allot.schemas.NodeRegistered;
import dev.allot.schemas.NodeStatus;
import dev.allot.schemas.NodeUndrained;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What node-status says about each node, for the timeline: its GPUs, when a drain was asked for, when it
 * finished and when it was lifted, and the stretches without heartbeats longer than {@code lostAfter}
 * (the scheduler's rule for a lost node; node-status carries no "lost" event of its own).
 */
final class NodeLog {

    /** A marked stretch of a node's row: a drain (requested to drained or undrained) or a silence (lost). */
    record Mark(String kind, long fromMillis, long toMillis, String note) {
    }

    static final class Node {
        final String nodeId;
        String cluster;
        int gpus;
        long lastHeard = -1;
        long drainRequestedAt = -1;
        long drainedAt = -1;
        String drainNote;
        final List<Mark> marks = new ArrayList<>();

        Node(String nodeId) {
            this.nodeId = nodeId;
        }
    }

    private final long lostAfterMillis;
    private final Map<String, Node> nodes = new TreeMap<>();

    NodeLog(long lostAfterMillis) {
        this.lostAfterMillis = lostAfterMillis;
    }

    synchronized void status(NodeStatus status) {
        long at = status.getOccurredAt().toEpochMilli();
        Node node = nodes.computeIfAbsent(status.getNodeId(), Node::new);
        if (node.lastHeard >= 0 && at - node.lastHeard > lostAfterMillis) {
            node.marks.add(new Mark("lost", node.lastHeard, at, "no heartbeat for " + (at - node.lastHeard) / 1000 + " s"));
        }
        node.lastHeard = Math.max(node.lastHeard, at);
        switch (status.getPayload()) {
            case NodeRegistered r -> {
                node.cluster = r.getCluster();
                node.gpus = r.getGpuCount();
            }
            case NodeHeartbeat h -> node.cluster = h.getCluster();
            case NodeDrainRequested d -> {
                node.drainRequestedAt = at;
                node.drainNote = "drain requested by " + d.getRequestedBy() + (d.getReason() == null ? "" : ": " + d.getReason());
            }
            case NodeDrained d -> node.drainedAt = node.drainRequestedAt >= 0 ? at : node.drainedAt;
            case NodeUndrained u -> {
                node.marks.addAll(drainMarks(node, at));
                node.drainRequestedAt = -1;
                node.drainedAt = -1;
            }
            default -> {
            }
        }
    }

    /** A drain's stretches: draining from the request until empty (or until {@code until}), then drained. */
    private static List<Mark> drainMarks(Node node, long until) {
        if (node.drainRequestedAt < 0) {
            return List.of();
        }
        if (node.drainedAt < 0) {
            return List.of(new Mark("draining", node.drainRequestedAt, until, node.drainNote));
        }
        return List.of(new Mark("draining", node.drainRequestedAt, node.drainedAt, node.drainNote),
                new Mark("drained", node.drainedAt, until, "drained: no new placements"));
    }

    /** The cluster's nodes with their marks up to {@code now}: open drains and a current silence included. */
    synchronized List<NodeRow> rows(String cluster, long now) {
        List<NodeRow> rows = new ArrayList<>();
        for (Node n : nodes.values()) {
            if (!cluster.equals(n.cluster)) {
                continue;
            }
            List<Mark> marks = new ArrayList<>(n.marks);
            marks.addAll(drainMarks(n, now));
            boolean lost = n.lastHeard >= 0 && now - n.lastHeard > lostAfterMillis;
            if (lost) {
                marks.add(new Mark("lost", n.lastHeard, now, "no heartbeat since " + java.time.Instant.ofEpochMilli(n.lastHeard)));
            }
            rows.add(new NodeRow(n.nodeId, n.gpus, lost, n.drainRequestedAt >= 0 && n.drainedAt < 0, n.drainedAt >= 0, marks));
        }
        return rows;
    }

    record NodeRow(String nodeId, int gpus, boolean lost, boolean draining, boolean drained, List<Mark> marks) {
    }
}
