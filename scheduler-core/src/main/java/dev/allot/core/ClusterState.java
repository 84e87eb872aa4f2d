package dev.allot.core;

import dev.allot.core.budget.EntitlementHistory;
import dev.allot.core.cluster.Node;
import dev.allot.core.placement.FreeIndex;
import dev.allot.core.policy.AccountRanking;
import dev.allot.core.reservation.Reservation;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/** Everything the core keeps about one cluster. */
final class ClusterState {
    final String name;
    final TreeMap<String, Node> nodes = new TreeMap<>();
    final FreeIndex open = new FreeIndex();
    /** Waiting jobs in arrival order (the pass sorts them). */
    final LinkedHashMap<String, Job> waiting = new LinkedHashMap<>();
    final TreeMap<String, Job> running = new TreeMap<>();
    /** Preemptible GPUs of running jobs per node, for the victim search. */
    final PreemptibleIndex preemptible = new PreemptibleIndex();
    final EntitlementHistory entitlement = new EntitlementHistory();
    /** GPUs held per account (both charge modes), for policies' admission limits. */
    final HashMap<String, Integer> runningGpus = new HashMap<>();
    /** Account to {charged GPUs, unallocated GPUs} currently running: the rate the ledger accrues. */
    final TreeMap<String, int[]> rates = new TreeMap<>();
    final ArrayList<Reservation> reservations = new ArrayList<>();
    AccountRanking lastRanking = AccountRanking.flat();
    /** The order of the last pass (may hold jobs that left since) and the ranks it was sorted with. */
    PassOrder order;
    /** Waiting jobs per account, sorted by the within-account rule (may hold stale entries). */
    final TreeMap<String, ArrayList<Job>> byAccount = new TreeMap<>();
    java.util.Comparator<JobView> orderWithin;
    /** Jobs that joined the waiting set since the last pass. */
    final ArrayList<Job> arrivals = new ArrayList<>();
    /** Waiting jobs of debug shape (lane candidates) per account, in the account's own order. */
    final HashMap<String, java.util.TreeSet<Job>> debugShaped = new HashMap<>();
    /** The policy's within-account order (the same instance on every call, see SchedulingPolicy). */
    private final java.util.Comparator<? super Job> within;
    /** Nodes held for the debug lane, by id. */
    final TreeMap<String, Node> debugReserve = new TreeMap<>();
    /** Changes of GPU holdings (placements, releases, held-node changes), for {@link #heldMaxFree}. */
    long holdingsVersion;
    private long heldMaxFreeVersion = -1;
    private int heldMaxFree;
    /** GPUs per account held by running lane jobs. */
    final HashMap<String, Integer> laneGpus = new HashMap<>();
    long lastPassAt = -1;
    long lastPassNo = -1;


    ClusterState(String name, java.util.Comparator<? super Job> within) {
        this.name = name;
        this.within = within;
    }

    /** {@link #nodes} as an array and each node's position in it; nodes only ever join, so a size check keeps them fresh. */
    private Node[] nodeArray = new Node[0];
    private HashMap<String, Integer> nodeIndex = new HashMap<>();

    /** The nodes in id order (shared: do not modify). */
    Node[] nodeArray() {
        if (nodeArray.length != nodes.size()) {
            nodeArray = nodes.values().toArray(new Node[0]);
            nodeIndex = HashMap.newHashMap(nodeArray.length);
            for (int i = 0; i < nodeArray.length; i++) {
                nodeIndex.put(nodeArray[i].nodeId(), i);
            }
        }
        return nodeArray;
    }

    /**
     * ableNodes[g]: available nodes (see {@link Node#available()}) with at least g GPUs, for g up
     * to the most GPUs on one; null after a change. Fixed between node events, so kept across passes.
     */
    private int[] ableNodes;

    /** A node joined, was lost, re-registered, drained or undrained. */
    void availabilityChanged() {
        ableNodes = null;
    }

    /** Live, not draining nodes with at least {@code gpus} GPUs. */
    int ableNodes(int gpus) {
        int[] able = ableNodes();
        return gpus >= able.length ? 0 : able[Math.max(gpus, 0)];
    }

    /** The most GPUs on one live, not draining node (0 if none). */
    int widestAbleNode() {
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
     * The position in {@link #nodeArray()} of each of the job's replicas' nodes (-1 if not in this
     * cluster), in placement order. Cached on the job until its placement or the node array changes.
     */
    int[] nodeIndices(Job j) {
        Node[] array = nodeArray();
        if (j.nodeIndicesOf != j.placement || j.nodeIndicesIn != array) {
            int[] at = new int[j.placement.size()];
            for (int k = 0; k < at.length; k++) {
                Integer i = nodeIndex.get(j.placement.get(k).nodeId());
                at[k] = i == null ? -1 : i;
            }
            j.nodeIndices = at;
            j.nodeIndicesOf = j.placement;
            j.nodeIndicesIn = array;
        }
        return j.nodeIndices;
    }

    /** All waiting jobs: GPUs per replica to a multiset of their replica counts. */
    private final TreeMap<Integer, TreeMap<Integer, Integer>> waitingShapes = new TreeMap<>();
    /** Waiting allocated jobs (the only ones that may preempt): GPUs per replica to a multiset of their replica counts. */
    private final TreeMap<Integer, TreeMap<Integer, Integer>> allocatedShapes = new TreeMap<>();
    /** Waiting unallocated jobs: GPUs per replica to a multiset of their replica counts. */
    private final TreeMap<Integer, TreeMap<Integer, Integer>> unallocatedShapes = new TreeMap<>();
    /** Waiting jobs with a known duration: GPUs per replica to a multiset of their durations. */
    private final TreeMap<Integer, TreeMap<Long, Integer>> durationsByGpus = new TreeMap<>();
    /** Allocated waiting jobs: GPUs per replica to a multiset of their minimum runtimes. */
    private final TreeMap<Integer, TreeMap<Long, Integer>> minRuntimesByGpus = new TreeMap<>();

    /**
     * One account's waiting jobs in this cluster: their shapes by charge mode (GPUs per replica to a
     * multiset of replica counts) and how many of them its sorted list in {@link #byAccount} holds.
     * Enough to tell that none of them could do anything in a pass without visiting each.
     */
    static final class AccountWaiting {
        final TreeMap<Integer, TreeMap<Integer, Integer>> allocated = new TreeMap<>();
        final TreeMap<Integer, TreeMap<Integer, Integer>> unallocated = new TreeMap<>();
        /** Allocated jobs' minimum runtimes and known durations, multisets: who might backfill a reservation. */
        final TreeMap<Long, Integer> minRuntimes = new TreeMap<>();
        final TreeMap<Long, Integer> durations = new TreeMap<>();
        /** Waiting jobs whose listedIn is the account's list. */
        int listed;
        private int jobs;
        /** Per GPUs per replica, the fewest replicas among the waiting jobs (0: none); null when stale. */
        private int[] fewestAllocated;
        private int[] fewestUnallocated;

        int[] fewestAllocated() {
            if (fewestAllocated == null) {
                fewestAllocated = fewest(allocated, Map.of());
            }
            return fewestAllocated;
        }

        int[] fewestUnallocated() {
            if (fewestUnallocated == null) {
                fewestUnallocated = fewest(unallocated, Map.of());
            }
            return fewestUnallocated;
        }
    }

    /** Per GPUs per replica, the fewest replicas in {@code shapes} not used up by {@code excluded} (0: none). */
    static int[] fewest(TreeMap<Integer, TreeMap<Integer, Integer>> shapes,
            Map<Integer, TreeMap<Integer, Integer>> excluded) {
        int[] out = new int[shapes.isEmpty() ? 0 : shapes.lastKey() + 1];
        for (var e : shapes.entrySet()) {
            out[e.getKey()] = fewestLeft(e.getValue(), excluded.get(e.getKey()));
        }
        return out;
    }

    private final HashMap<String, AccountWaiting> accountWaiting = new HashMap<>();

    AccountWaiting accountWaiting(String account) {
        return accountWaiting.get(account);
    }

    /** The job, waiting, was just filed in its account's sorted list. */
    void listed(Job j) {
        accountWaiting.get(j.account()).listed++;
    }

    /** Every list is rebuilt: no waiting job is listed any more. */
    void unlistAll() {
        for (AccountWaiting w : accountWaiting.values()) {
            w.listed = 0;
        }
    }

    void addWaiting(Job j) {
        if (waiting.put(j.jobId(), j) == null) {
            count(j, 1);
            if (j.debugShape) {
                debugShaped.computeIfAbsent(j.account(), a -> new java.util.TreeSet<>(within)).add(j);
                laneWaitingStale.add(j.account());
            }
        }
    }

    void removeWaiting(Job j) {
        if (waiting.remove(j.jobId()) != null) {
            if (j.listedIn != null) {
                accountWaiting.get(j.account()).listed--;
            }
            count(j, -1);
            if (j.debugShape) {
                java.util.TreeSet<Job> mine = debugShaped.get(j.account());
                mine.remove(j);
                if (mine.isEmpty()) {
                    debugShaped.remove(j.account());
                }
                laneWaitingStale.add(j.account());
            }
        }
    }

    /**
     * {@link #debugShapedDemand} per account, summed in {@link #laneWaitingDemand}, for {@link
     * #laneWaitingBound}; accounts whose debug-shape jobs changed since are in {@link #laneWaitingStale}.
     */
    private final HashMap<String, Integer> laneWaitingOf = new HashMap<>();
    private final java.util.HashSet<String> laneWaitingStale = new java.util.HashSet<>();
    private int laneWaitingDemand;
    private int laneWaitingBound = Integer.MIN_VALUE;

    /**
     * Per account, the GPUs of its first waiting debug-shape jobs (in its own order) that fit
     * within {@code bound} together, summed over accounts. Only accounts whose debug-shape jobs
     * changed since the last call are counted again.
     */
    int debugShapedDemand(int bound) {
        if (bound != laneWaitingBound) {
            laneWaitingOf.clear();
            laneWaitingDemand = 0;
            laneWaitingStale.addAll(debugShaped.keySet());
            laneWaitingBound = bound;
        }
        for (String a : laneWaitingStale) {
            Integer old = laneWaitingOf.remove(a);
            if (old != null) {
                laneWaitingDemand -= old;
            }
            java.util.TreeSet<Job> mine = debugShaped.get(a);
            if (mine != null) {
                int w = 0;
                for (Job j : mine) {
                    if (w + j.gpus() > bound) {
                        break;
                    }
                    w += j.gpus();
                }
                laneWaitingOf.put(a, w);
                laneWaitingDemand += w;
            }
        }
        laneWaitingStale.clear();
        return laneWaitingDemand;
    }

    private void count(Job j, int d) {
        int gpus = j.request.gpusPerReplica();
        bump(waitingShapes, gpus, j.request.replicas(), d);
        AccountWaiting mine = accountWaiting.computeIfAbsent(j.account(), a -> new AccountWaiting());
        mine.jobs += d;
        mine.fewestAllocated = null;
        mine.fewestUnallocated = null;
        if (mine.jobs == 0) {
            accountWaiting.remove(j.account());
        }
        if (j.mode == ChargeMode.UNALLOCATED) {
            bump(unallocatedShapes, gpus, j.request.replicas(), d);
            bump(mine.unallocated, gpus, j.request.replicas(), d);
        } else {
            bump(allocatedShapes, gpus, j.request.replicas(), d);
            bump(mine.allocated, gpus, j.request.replicas(), d);
            bump(mine.minRuntimes, j.request.minRuntimeMillis(), d);
            bump(minRuntimesByGpus, gpus, j.request.minRuntimeMillis(), d);
        }
        if (j.request.expectedDurationMillis() >= 0) {
            bump(durationsByGpus, gpus, j.request.expectedDurationMillis(), d);
            bump(mine.durations, j.request.expectedDurationMillis(), d);
        }
    }

    /** Adds {@code d} to the count of {@code k} in the multiset filed under {@code gpus}; empty ones go. */
    static <K> void bump(Map<Integer, TreeMap<K, Integer>> byGpus, int gpus, K k, int d) {
        TreeMap<K, Integer> m = byGpus.computeIfAbsent(gpus, g -> new TreeMap<>());
        bump(m, k, d);
        if (m.isEmpty()) {
            byGpus.remove(gpus);
        }
    }

    private static <K> void bump(TreeMap<K, Integer> m, K k, int d) {
        int v = m.getOrDefault(k, 0) + d;
        if (v == 0) {
            m.remove(k);
        } else {
            m.put(k, v);
        }
    }

    /**
     * Could some waiting job backfill a reserved node with {@code free} GPUs due in {@code untilDue} ms,
     * for a holder that may or may not preempt?
     */
    boolean mayHaveBackfill(int free, long untilDue, boolean holderMayPreempt) {
        // (jobs that end before the due time may backfill)
        for (var e : durationsByGpus.headMap(free, true).values()) {
            if (e.firstKey() <= untilDue) {
                return true;
            }
        }
        if (!holderMayPreempt) {
            return false;
        }
        if (!unallocatedShapes.isEmpty() && unallocatedShapes.firstKey() <= free) {
            // (unallocated jobs may backfill: the holder can displace them at any time)
            return true;
        }
        // (so may jobs whose protection ends before the due time, if the holder may displace them)
        for (var e : minRuntimesByGpus.headMap(free, true).values()) {
            if (e.firstKey() <= untilDue) {
                return true;
            }
        }
        return false;
    }

    /** Could some waiting job's gang fit in the free GPUs of open nodes (by shape alone)? */
    boolean anyWaitingFitsOpen() {
        for (var e : waitingShapes.entrySet()) {
            if (open.countAtLeast(e.getKey()) >= e.getValue().firstKey()) {
                return true;
            }
        }
        return false;
    }

    /**
     * Would every waiting allocated job but those in {@code walked} (GPUs per replica to a multiset of
     * replica counts) fail to preempt, given the shapes that already failed?
     */
    boolean allocatedWaitingDominatedBy(FailedShapes failed, Map<Integer, TreeMap<Integer, Integer>> walked) {
        return failed.dominatesAll(fewest(allocatedShapes, walked));
    }

    /** The smallest count in multiset {@code all} not used up by {@code excluded}, or 0 if none is left. */
    static int fewestLeft(TreeMap<Integer, Integer> all, TreeMap<Integer, Integer> excluded) {
        for (var c : all.entrySet()) {
            if (c.getValue() > (excluded == null ? 0 : excluded.getOrDefault(c.getKey(), 0))) {
                return c.getKey();
            }
        }
        return 0;
    }


    /** The most free GPUs on one held node (0 if none), cached until holdings change. */
    int heldMaxFree() {
        if (heldMaxFreeVersion != holdingsVersion) {
            heldMaxFree = 0;
            for (Node n : debugReserve.values()) {
                heldMaxFree = Math.max(heldMaxFree, n.freeGpus());
            }
            heldMaxFreeVersion = holdingsVersion;
        }
        return heldMaxFree;
    }

    /** Could a waiting unallocated job fit in {@code nodes} nodes with {@code free} GPUs each? */
    boolean unallocatedWaitingFits(int free, int nodes) {
        for (var byReplicas : unallocatedShapes.headMap(free, true).values()) {
            if (byReplicas.firstKey() <= nodes) {
                return true;
            }
        }
        return false;
    }

    int capacityGpus() {
        int c = 0;
        for (Node n : nodes.values()) {
            if (!n.lost()) {
                c += n.gpus();
            }
        }
        return c;
    }

    Reservation reservationOf(String jobId) {
        for (Reservation r : reservations) {
            if (r.jobId().equals(jobId)) {
                return r;
            }
        }
        return null;
    }
}
