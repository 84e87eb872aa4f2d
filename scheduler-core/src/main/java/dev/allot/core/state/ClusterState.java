package dev.allot.core.state;

import dev.allot.core.JobState;
import dev.allot.core.JobView;
import dev.allot.core.ReplicaPlacement;
import dev.allot.core.cluster.Node;
import dev.allot.core.contract.Contract;
import dev.allot.core.explain.ExplanationBook;
import dev.allot.core.ordering.PassOrder;
import dev.allot.core.placement.FreeIndex;
import dev.allot.core.policy.AccountRanking;
import dev.allot.core.preemption.PreemptibleIndex;
import dev.allot.core.preemption.ThrashGuard;
import dev.allot.core.reservation.ReservationBook;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Everything the core keeps about one cluster, and the only place that changes it: jobs arrive,
 * are placed, released and requeued here, and every index over them (open nodes, waiting shapes,
 * account lists, preemptible GPUs, charge rates, the lane's GPUs) follows in the same call.
 * Internal.
 */
public final class ClusterState {
    public final String name;
    /** Nodes in id order (only ever join; lost nodes stay, fenced when they come back). */
    private final TreeMap<String, Node> nodes = new TreeMap<>();
    /** The same nodes for lookups by id (asked for every reserved node of every job walked). */
    private final HashMap<String, Node> nodeById = new HashMap<>();
    /** Live, not draining, not reserved or held nodes by free GPUs. */
    public final FreeIndex open = new FreeIndex();
    /** Waiting jobs in arrival order (the pass orders them). */
    private final LinkedHashMap<String, Job> waiting = new LinkedHashMap<>();
    private final TreeMap<String, Job> running = new TreeMap<>();
    public final PreemptibleIndex preemptible = new PreemptibleIndex();
    public final ThrashGuard thrash = new ThrashGuard();
    /** Account to {charged GPUs, unallocated GPUs} currently running: the rate the ledger accrues. */
    private final TreeMap<String, int[]> rates = new TreeMap<>();
    /** The same arrays by account, for lookups: admission checks ask once per walked job. */
    private final HashMap<String, int[]> rateOf = new HashMap<>();
    public final ReservationBook reservations;
    public final AccountQueues queues = new AccountQueues();
    public final WaitingShapes shapes = new WaitingShapes();
    public final LaneNodes laneNodes = new LaneNodes();
    public final LaneDemand laneDemand;
    /** What the last pass found about each waiting job it walked. */
    public final ExplanationBook explanations = new ExplanationBook();
    /** The ranking and order of the last pass (the order may hold jobs that left since), its time and number. */
    private AccountRanking lastRanking = AccountRanking.flat();
    private PassOrder order;
    private long lastPassAt = -1;
    private long lastPassNo = -1;

    /** {@link #nodes} as an array and each node's position in it; nodes only ever join, so a size check keeps them fresh. */
    private Node[] nodeArray = new Node[0];
    private HashMap<String, Integer> nodeIndex = new HashMap<>();
    /** Each running job's replicas' positions in {@link #nodeArray}, computed on first use, until the array changes. */
    private final IdentityHashMap<Job, int[]> nodeIndices = new IdentityHashMap<>();
    /**
     * ableNodes[g]: available nodes (see {@link Node#available()}) with at least g GPUs, for g up
     * to the most GPUs on one; null after a change. Fixed between node events, so kept across passes.
     */
    private int[] ableNodes;

    public ClusterState(String name, Comparator<? super Job> within) {
        this.name = name;
        this.laneDemand = new LaneDemand(within);
        this.reservations = new ReservationBook(nodeById, open);
    }

    // ---------------------------------------------------------------- jobs

    /** A submitted or requeued job joins the waiting set; the next pass files it in its account's list. */
    public void arrive(Job j) {
        if (waiting.put(j.jobId(), j) == null) {
            j.waitingSlot = explanations.open();
            shapes.count(j, 1);
            if (j.debugShape) {
                laneDemand.waiting(j);
            }
        }
        queues.arrive(j);
    }

    private void leaveWaiting(Job j) {
        if (waiting.remove(j.jobId()) != null) {
            if (j.listedIn != null) {
                shapes.listed(j, -1);
            }
            shapes.count(j, -1);
            if (j.debugShape) {
                laneDemand.left(j);
            }
            explanations.close(j.waitingSlot);
            j.waitingSlot = -1;
        }
    }

    /**
     * Starts the waiting job on {@code nodes} (one replica each) at {@code t}.
     *
     * @param preemptibleAtOnce whether it may be preempted from the start (unallocated, or contracts do not protect)
     * @param lane whether it starts as a debug-lane job
     */
    public void place(Job j, List<Node> nodes, long t, boolean preemptibleAtOnce, boolean lane) {
        ArrayList<ReplicaPlacement> replicas = new ArrayList<>(nodes.size());
        for (Node n : nodes) {
            int[] idx = n.allocate(j.jobId(), j.request.gpusPerReplica());
            open.update(n);
            ArrayList<Integer> l = new ArrayList<>(idx.length);
            for (int g : idx) {
                l.add(g);
            }
            replicas.add(new ReplicaPlacement(n.nodeId(), n.epoch(), l));
        }
        leaveWaiting(j);
        laneNodes.holdingsChanged();
        running.put(j.jobId(), j);
        j.state = JobState.RUNNING;
        j.placement = List.copyOf(replicas);
        j.placedAt = t;
        j.lastCheckpoint = t;
        j.guardedUntil = -1;
        j.protectedUntil = Contract.protectedUntil(t, j.request.minRuntimeMillis());
        preemptible.placed(this, j, preemptibleAtOnce);
        int[] rate = rateOf.computeIfAbsent(j.account(), a -> new int[2]);
        rates.put(j.account(), rate);
        rate[j.allocated() ? 0 : 1] += j.gpus();
        if (lane) {
            j.inLane = true;
            laneDemand.started(j);
        }
    }

    /** The running job was placed by displacing others: it may not be displaced itself before {@code until}. */
    public void guardFromThrash(Job j, long until) {
        j.guardedUntil = until;
    }

    /**
     * A waiting job restored from the log (recovery): it joins the waiting set with the queue time
     * and requeue count it had, as if it had arrived so.
     */
    public void restoreWaiting(Job j, long queuedSince, int requeues) {
        j.queuedSince = queuedSince;
        j.requeues = requeues;
        arrive(j);
    }

    /**
     * A running job restored from the log (recovery): it holds exactly the GPUs it was given
     * ({@code gpus.get(k)} on {@code nodes.get(k)}), from {@code placedAt}, with its last checkpoint
     * and protected window as they were; every index follows as for {@link #place}. The nodes are
     * checked first so that a refused restore changes nothing.
     */
    public void restoreRunning(Job j, List<Node> nodes, List<List<Integer>> gpus, long placedAt, long lastCheckpoint,
            long queuedSince, int requeues, boolean preemptibleAtOnce, boolean lane) {
        if (nodes.size() != j.request.replicas() || gpus.size() != nodes.size()) {
            throw new IllegalArgumentException(j.jobId() + ": " + nodes.size() + " replicas restored, "
                    + j.request.replicas() + " requested");
        }
        for (int k = 0; k < nodes.size(); k++) {
            Node n = nodes.get(k);
            if (n.lost() || n.jobs().containsKey(j.jobId()) || gpus.get(k).size() != j.request.gpusPerReplica()
                    || gpus.get(k).size() > n.freeGpus() || nodes.indexOf(n) != k) {
                throw new IllegalStateException(j.jobId() + ": cannot restore replica " + k + " on " + n.nodeId()
                        + " (lost " + n.lost() + ", free " + n.freeGpus() + ", GPUs " + gpus.get(k) + ")");
            }
        }
        ArrayList<ReplicaPlacement> replicas = new ArrayList<>(nodes.size());
        for (int k = 0; k < nodes.size(); k++) {
            Node n = nodes.get(k);
            try {
                n.allocateExact(j.jobId(), gpus.get(k));
            } catch (IllegalStateException e) {
                for (int r = 0; r < k; r++) {
                    nodes.get(r).release(j.jobId());
                    open.update(nodes.get(r));
                }
                throw e;
            }
            open.update(n);
            replicas.add(new ReplicaPlacement(n.nodeId(), n.epoch(), gpus.get(k)));
        }
        j.queuedSince = queuedSince;
        j.requeues = requeues;
        laneNodes.holdingsChanged();
        running.put(j.jobId(), j);
        j.state = JobState.RUNNING;
        j.placement = List.copyOf(replicas);
        j.placedAt = placedAt;
        j.lastCheckpoint = Math.max(placedAt, lastCheckpoint);
        j.protectedUntil = Contract.protectedUntil(placedAt, j.request.minRuntimeMillis());
        preemptible.placed(this, j, preemptibleAtOnce);
        int[] rate = rateOf.computeIfAbsent(j.account(), a -> new int[2]);
        rates.put(j.account(), rate);
        rate[j.allocated() ? 0 : 1] += j.gpus();
        if (lane) {
            j.inLane = true;
            laneDemand.started(j);
        }
    }

    /** What a release took away: the placement it ended and the work it lost. */
    public record Released(List<ReplicaPlacement> placement, double lostGpuSeconds) {
    }

    /**
     * Stops the running job at {@code t} and queues it again. Resumable jobs (and jobs requeued
     * through no fault of their own: {@code keepSubmitTime}) keep their place by submit time;
     * others restart from scratch and queue from {@code t}.
     */
    public Released requeue(Job j, long t, boolean keepSubmitTime) {
        Released r = new Released(j.placement, j.workLostAt(t));
        release(j, t);
        j.state = JobState.WAITING;
        j.requeues++;
        if (!keepSubmitTime) {
            j.queuedSince = t;
        }
        arrive(j);
        return r;
    }

    /** The job is done (finished, exited or cancelled): it leaves the waiting set or frees its GPUs. */
    public void finish(Job j, long t) {
        if (j.state == JobState.RUNNING) {
            release(j, t);
        } else if (j.state == JobState.WAITING) {
            leaveWaiting(j);
        } else {
            return;
        }
        j.state = JobState.FINISHED;
    }

    /** Frees the job's GPUs everywhere; the caller sets its next state. */
    private void release(Job j, long t) {
        preemptible.releasing(this, j);
        for (ReplicaPlacement r : j.placement) {
            Node n = nodeById.get(r.nodeId());
            if (n != null && n.epoch() == r.nodeEpoch()) {
                n.release(j.jobId());
                open.update(n);
            }
        }
        running.remove(j.jobId());
        nodeIndices.remove(j);
        laneNodes.holdingsChanged();
        int[] rate = rateOf.get(j.account());
        rate[j.allocated() ? 0 : 1] -= j.gpus();
        if (rate[0] == 0 && rate[1] == 0) {
            rates.remove(j.account());
            rateOf.remove(j.account());
        }
        if (j.inLane) {
            j.inLane = false;
            laneDemand.stopped(j);
        }
        j.placement = List.of();
        j.placedAt = -1;
        j.protectedUntil = -1;
        j.lastCheckpoint = -1;
        j.guardedUntil = -1;
    }

    /** Waiting jobs in arrival order (read only). */
    public Collection<Job> waitingJobs() {
        return Collections.unmodifiableCollection(waiting.values());
    }

    public int waitingCount() {
        return waiting.size();
    }

    /** Running jobs by id (read only). */
    public Collection<Job> runningJobs() {
        return Collections.unmodifiableCollection(running.values());
    }

    /** Files the arrivals in their accounts' lists, sorted by {@code within}. */
    public void fileArrivals(Comparator<JobView> within) {
        queues.merge(within, waiting.values(), shapes);
    }

    /** Account to {charged, unallocated} GPUs running now (read only; accounts with none are absent). */
    public Map<String, int[]> rates() {
        return Collections.unmodifiableMap(rates);
    }

    /** GPUs the account holds here now, both charge modes. */
    public int runningGpus(String account) {
        int[] r = rateOf.get(account);
        return r == null ? 0 : r[0] + r[1];
    }

    // ---------------------------------------------------------------- nodes

    /** The nodes in id order (read only). */
    public Collection<Node> nodes() {
        return Collections.unmodifiableCollection(nodes.values());
    }

    public Node node(String nodeId) {
        return nodeById.get(nodeId);
    }

    /** A new node joins the cluster: it takes work. */
    public void nodeJoined(Node n) {
        nodes.put(n.nodeId(), n);
        nodeById.put(n.nodeId(), n);
        open.add(n);
        availabilityChanged();
    }

    /** A copy of a node (see {@link Node#emptyCopyOf}) joins a copy of the cluster, lost or draining as it is. */
    public void nodeCopied(Node n) {
        nodes.put(n.nodeId(), n);
        nodeById.put(n.nodeId(), n);
        if (n.available()) {
            open.add(n);
        }
        availabilityChanged();
    }

    /** A lost node registers again: fenced (new epoch, empty), it takes work. */
    public void nodeBack(Node n) {
        n.fence();
        open.add(n);
        availabilityChanged();
    }

    /** No new work on the node; it is no longer held for the lane nor reserved (its jobs go as their contracts allow). */
    public void drain(Node n) {
        n.drain();
        closed(n);
    }

    /** The node takes work again. */
    public void undrain(Node n) {
        n.undrain();
        reopened(n);
    }

    /**
     * The node went silent: no new work there, and it holds nothing for the lane nor for a reservation, as
     * when it drains; but its jobs stay (it is not lost yet).
     */
    public void unreachable(Node n) {
        n.unreachable(true);
        closed(n);
    }

    /** A silent node is heard from again: it takes work again (unless it drains). */
    public void reachable(Node n) {
        n.unreachable(false);
        reopened(n);
    }

    /** The node just stopped taking work: out of the open set, the lane and reservations. */
    private void closed(Node n) {
        availabilityChanged();
        open.remove(n);
        laneNodes.release(n, open);
        reservations.dropHolding(n);
    }

    /** The node may take work again: back in the open set if nothing else keeps it out. */
    private void reopened(Node n) {
        availabilityChanged();
        if (n.available() && !n.debugReserve()) {
            open.add(n);
        }
    }

    /** A job requeued by a node's loss, and what it released. */
    public record Requeued(Job job, Released released) {
    }

    /** The node is lost at {@code t}: every job with a replica there requeues keeping its submit time (in job id order). */
    public List<Requeued> lose(Node n, long t) {
        reservations.dropHolding(n);
        open.remove(n);
        ArrayList<Requeued> out = new ArrayList<>();
        for (String jobId : List.copyOf(n.jobs().keySet())) {
            Job j = running.get(jobId);
            out.add(new Requeued(j, requeue(j, t, true)));
        }
        n.lose();
        availabilityChanged();
        laneNodes.release(n, open); // after lose(): a lost node must not return to the open set
        return out;
    }

    /** The nodes in id order (shared: do not modify). */
    public Node[] nodeArray() {
        if (nodeArray.length != nodes.size()) {
            nodeArray = nodes.values().toArray(new Node[0]);
            nodeIndex = HashMap.newHashMap(nodeArray.length);
            for (int i = 0; i < nodeArray.length; i++) {
                nodeIndex.put(nodeArray[i].nodeId(), i);
            }
            nodeIndices.clear();
        }
        return nodeArray;
    }

    /**
     * The position in {@link #nodeArray()} of each of the running job's replicas' nodes (-1 if not
     * in this cluster), in placement order. Shared: do not modify.
     */
    public int[] nodeIndices(Job j) {
        nodeArray();
        int[] at = nodeIndices.get(j);
        if (at == null) {
            at = new int[j.placement.size()];
            for (int k = 0; k < at.length; k++) {
                Integer i = nodeIndex.get(j.placement.get(k).nodeId());
                at[k] = i == null ? -1 : i;
            }
            nodeIndices.put(j, at);
        }
        return at;
    }

    /** A node joined, was lost, re-registered, drained or undrained. */
    public void availabilityChanged() {
        ableNodes = null;
    }

    /** Live, not draining nodes with at least {@code gpus} GPUs. */
    public int ableNodes(int gpus) {
        int[] able = ableNodes();
        return gpus >= able.length ? 0 : able[Math.max(gpus, 0)];
    }

    /** The most GPUs on one live, not draining node (0 if none). */
    public int widestAbleNode() {
        return ableNodes().length - 1;
    }

    private int[] ableNodes() {
        if (ableNodes == null) {
            int max = 0;
            for (Node n : nodes.values()) {
                if (n.available()) {
                    max = Math.max(max, n.gpus());
                }
            }
            ableNodes = new int[max + 1];
            for (Node n : nodes.values()) {
                if (n.available()) {
                    ableNodes[n.gpus()]++;
                }
            }
            for (int g = max - 1; g >= 0; g--) {
                ableNodes[g] += ableNodes[g + 1];
            }
        }
        return ableNodes;
    }

    /**
     * GPUs of every node registered in the cluster, lost ones included (a loss is the scheduler's
     * liveness verdict, not in the log): the capacity what an account is owed is counted on.
     */
    public int registeredGpus() {
        int c = 0;
        for (Node n : nodes.values()) {
            c += n.gpus();
        }
        return c;
    }

    public int capacityGpus() {
        int c = 0;
        for (Node n : nodes.values()) {
            if (!n.lost()) {
                c += n.gpus();
            }
        }
        return c;
    }

    /** A pass numbered {@code passNo} at {@code t} ranked the accounts and ordered the waiting jobs so. */
    public void passStarted(AccountRanking ranking, PassOrder passOrder, long t, long passNo) {
        lastRanking = ranking;
        order = passOrder;
        lastPassAt = t;
        lastPassNo = passNo;
    }

    public AccountRanking lastRanking() {
        return lastRanking;
    }

    /** The order of the last pass, or null before the first. */
    public PassOrder order() {
        return order;
    }

    public long lastPassAt() {
        return lastPassAt;
    }

    public long lastPassNo() {
        return lastPassNo;
    }

    /** Whether the job is in the lane group of the last pass's order (this pass's, during a pass). */
    public boolean inLaneGroup(Job j) {
        return order != null && order.inLane(j);
    }
}
