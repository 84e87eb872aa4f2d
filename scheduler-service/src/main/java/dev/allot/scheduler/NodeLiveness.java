package dev.allot.scheduler;

import dev.allot.schemas.StopReason;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Predicate;

/**
 * What the edge knows of nodes and the core does not: each agent's registration (its epoch, which
 * commands must carry, and GPU count), when each node was last heard from, and which stray replicas
 * (jobs a node runs that are not assigned to it) were told to stop lately. It decides which nodes
 * are unreachable (no new work) or lost, when a lost node is back, and which replicas to fence; the
 * {@link Projection} applies that to the core.
 *
 * <p>Liveness is not in the log: after a rebuild every node gets a fresh grace period ({@link #heardAllAt}).
 */
final class NodeLiveness {

    /** A node silent for lost-after / this takes no new work (10 s of the default 30 s: five 2 s heartbeats). */
    static final int UNREACHABLE_FRACTION = 3;

    /** A stray replica is told to stop again at most this often while its node keeps reporting it. */
    static final long STRAY_STOP_INTERVAL_MILLIS = 30_000;

    /** What a registration means for the core. */
    enum Registration {
        /** A node not known yet, or one known as lost registering again: register it. */
        NEW_OR_RETURNING,
        /** The same registration again (same or older agent epoch) of a live node: nothing to do. */
        REPEATED,
        /** A live node's agent restarted (higher epoch): whatever ran there is gone; lose it, then register it. */
        AGENT_RESTARTED
    }

    /** A replica a node runs that it should not: stop it, with the node's agent epoch. */
    record StrayReplica(String jobId, String nodeId, long agentEpoch, StopReason reason) {
    }

    /**
     * What a heartbeat means: the registration to apply when a lost node is heard from again
     * (null otherwise), and the stray replicas to stop.
     */
    record Heard(Input.RegisterNode returning, List<StrayReplica> strays) {
        static final Heard NOTHING = new Heard(null, List.of());
    }

    /** How the edge sees a replica a node reports running. */
    interface Replicas {
        /** The core runs {@code jobId} with a replica on {@code nodeId}. */
        boolean assigned(String jobId, String nodeId);

        /** That replica was told to stop and has not exited yet. */
        boolean stopping(String jobId, String nodeId);
    }

    private static final class Agent {
        int gpus;
        long epoch;

        Agent(int gpus, long epoch) {
            this.gpus = gpus;
            this.epoch = epoch;
        }
    }

    private final long lostAfterMillis;
    private final TreeMap<String, Agent> agents = new TreeMap<>();
    private final Map<String, Long> lastHeard = new HashMap<>();
    private final Map<String, Long> strayStoppedAt = new HashMap<>();

    NodeLiveness(long lostAfterMillis) {
        this.lostAfterMillis = lostAfterMillis;
    }

    /**
     * A node registers (its agent's NodeRegistered, or a lost node heard from again).
     *
     * @param liveInCore the core knows the node and does not hold it lost
     */
    Registration registered(Input.RegisterNode n, boolean liveInCore) {
        Agent known = agents.get(n.nodeId());
        lastHeard.put(n.nodeId(), n.at());
        Registration what = Registration.NEW_OR_RETURNING;
        if (known != null && liveInCore) {
            if (n.agentEpoch() <= known.epoch) {
                return Registration.REPEATED;
            }
            what = Registration.AGENT_RESTARTED;
        }
        if (known == null) {
            agents.put(n.nodeId(), new Agent(n.gpus(), n.agentEpoch()));
        } else {
            known.gpus = n.gpus();
            known.epoch = Math.max(known.epoch, n.agentEpoch());
        }
        return what;
    }

    /**
     * A heartbeat of a registered node (others are ignored). A node the core holds lost is back: it
     * registers afresh (fenced, empty) and every replica it reports is fenced. Otherwise the replicas
     * it runs that are neither assigned to it nor already told to stop are stopped as not assigned,
     * at most once per {@link #STRAY_STOP_INTERVAL_MILLIS}.
     *
     * @param lostInCore the core holds the node lost
     */
    Heard heartbeat(Input.Heartbeat h, boolean lostInCore, Replicas replicas) {
        Agent agent = agents.get(h.nodeId());
        if (agent == null) {
            return Heard.NOTHING;
        }
        lastHeard.put(h.nodeId(), h.at());
        long epoch = Math.max(h.epoch(), agent.epoch);
        Input.RegisterNode returning = lostInCore ? new Input.RegisterNode(h.at(), h.nodeId(), agent.gpus, epoch) : null;
        List<StrayReplica> strays = new ArrayList<>();
        for (String jobId : h.runningJobs()) {
            boolean assigned = returning == null && replicas.assigned(jobId, h.nodeId());
            if (assigned || replicas.stopping(jobId, h.nodeId())) {
                continue;
            }
            String key = jobId + "@" + h.nodeId();
            Long last = strayStoppedAt.get(key);
            if (last == null || h.at() - last > STRAY_STOP_INTERVAL_MILLIS) {
                strayStoppedAt.put(key, h.at());
                strays.add(new StrayReplica(jobId, h.nodeId(), epoch,
                        returning != null ? StopReason.FENCED : StopReason.NOT_ASSIGNED));
            }
        }
        return new Heard(returning, strays);
    }

    /**
     * Silent nodes at {@code now}: those not heard from for longer than {@code lost-after} as
     * {@link Input.NodeLost}, and those silent for longer than {@link #UNREACHABLE_FRACTION} of it (but not
     * lost yet) as {@link Input.NodeUnreachable}, each only when it changes the core.
     *
     * <p>Why both: the nodes of one agent fall silent together, but their last heartbeats (and so their
     * losses) may fall in different ticks. A job requeued by the first loss must not be placed on a node that
     * is about to be lost too; it waits for a node that is heard from.
     *
     * @param liveInCore whether the core knows a node and does not hold it lost already
     * @param reachableInCore whether the core takes new work on a node (not held unreachable)
     */
    List<Input> silentNodes(long now, Predicate<String> liveInCore, Predicate<String> reachableInCore) {
        List<Input> silent = new ArrayList<>();
        for (String nodeId : agents.keySet()) {
            Long heard = lastHeard.get(nodeId);
            if (heard == null || !liveInCore.test(nodeId)) {
                continue;
            }
            if (now - heard > lostAfterMillis) {
                silent.add(new Input.NodeLost(now, nodeId));
            } else if (now - heard > unreachableAfterMillis() && reachableInCore.test(nodeId)) {
                silent.add(new Input.NodeUnreachable(now, nodeId));
            }
        }
        return silent;
    }

    /** How long a node may be silent before no new work goes there: a third of {@code lost-after}. */
    long unreachableAfterMillis() {
        return unreachableAfterMillis(lostAfterMillis);
    }

    static long unreachableAfterMillis(long lostAfterMillis) {
        return lostAfterMillis / UNREACHABLE_FRACTION;
    }

    /**
     * The instance did not read its inputs for {@code millis} (a step that took that long: a slow commit on an
     * overloaded broker, a long pass): that time does not count as any node's silence, since heartbeats sent
     * meanwhile wait unread. Every node's last-heard time moves forward by it.
     */
    void notListening(long millis) {
        if (millis > 0) {
            lastHeard.replaceAll((nodeId, heard) -> heard + millis);
        }
    }

    /** After a rebuild: liveness is not in the log, so every known node gets a fresh grace period. */
    void heardAllAt(long now) {
        for (String nodeId : agents.keySet()) {
            lastHeard.put(nodeId, now);
        }
    }

    boolean knows(String nodeId) {
        return agents.containsKey(nodeId);
    }

    /** The epoch the node's agent registered with (what its commands carry); 0 for an unknown node. */
    long agentEpoch(String nodeId) {
        Agent a = agents.get(nodeId);
        return a == null ? 0 : a.epoch;
    }

    int nodeCount() {
        return agents.size();
    }

    /** The registered nodes' shape, for submission rules (lost and draining nodes count). */
    SubmissionRules.ClusterShape shape() {
        int largest = 0;
        long total = 0;
        for (Agent a : agents.values()) {
            largest = Math.max(largest, a.gpus);
            total += a.gpus;
        }
        return new SubmissionRules.ClusterShape(agents.size(), largest, total);
    }
}
