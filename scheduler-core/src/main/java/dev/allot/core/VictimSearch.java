package dev.allot.core;

import dev.allot.core.cluster.Node;
import dev.allot.core.preemption.VictimOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.function.Predicate;

/**
 * Victim search for one pass over one cluster, applying the rules of {@link VictimOrder}. Built
 * lazily at the first preemption attempt of a pass: per node (array index in id order), its
 * preemptible-now jobs in victim order and how many of their GPUs are unallocated or allocated,
 * so a node that cannot reach the size is skipped in O(1). Jobs displaced during the pass are
 * subtracted; jobs placed during the pass are never victims in it.
 */
final class VictimSearch {

    record Selection(List<Job> victims, List<Node> nodes) {
    }

    /** Whether a node may take the preemptor's replica (drain, size, reservations). */
    interface Eligibility {
        boolean test(Node n);
    }

    private final Node[] nodes;
    private final HashMap<String, Integer> index = new HashMap<>();
    private final Job[][] victims;
    private final int[][] gpusHere;
    private final int[] unallocated;
    private final int[] allocated;
    private final long pass;
    private int preemptibleJobs;

    VictimSearch(Collection<Node> clusterNodes, Collection<Job> running, Predicate<Job> preemptibleNow, long now,
            long pass) {
        this.pass = pass;
        this.nodes = clusterNodes.toArray(new Node[0]);
        for (int i = 0; i < nodes.length; i++) {
            index.put(nodes[i].nodeId(), i);
        }
        ArrayList<ArrayList<Job>> lists = new ArrayList<>(nodes.length);
        for (int i = 0; i < nodes.length; i++) {
            lists.add(null);
        }
        for (Job j : running) {
            if (!preemptibleNow.test(j)) {
                continue;
            }
            preemptibleJobs++;
            for (ReplicaPlacement r : j.placement) {
                Integer i = index.get(r.nodeId());
                if (i != null && nodes[i].epoch() == r.nodeEpoch()) {
                    if (lists.get(i) == null) {
                        lists.set(i, new ArrayList<>(4));
                    }
                    lists.get(i).add(j);
                }
            }
        }
        Comparator<JobView> order = VictimOrder.at(now);
        victims = new Job[nodes.length][];
        gpusHere = new int[nodes.length][];
        unallocated = new int[nodes.length];
        allocated = new int[nodes.length];
        for (int i = 0; i < nodes.length; i++) {
            ArrayList<Job> l = lists.get(i);
            if (l == null) {
                continue;
            }
            l.sort(order);
            victims[i] = l.toArray(new Job[0]);
            gpusHere[i] = new int[victims[i].length];
            for (int k = 0; k < victims[i].length; k++) {
                Job v = victims[i][k];
                int g = 0;
                for (ReplicaPlacement r : v.placement) {
                    if (r.nodeId().equals(nodes[i].nodeId())) {
                        g = r.gpuIndices().size();
                    }
                }
                gpusHere[i][k] = g;
                if (v.mode == ChargeMode.UNALLOCATED) {
                    unallocated[i] += g;
                } else {
                    allocated[i] += g;
                }
            }
        }
    }

    boolean nothingPreemptible() {
        return preemptibleJobs == 0;
    }

    /** A victim was displaced: its GPUs are no longer there to take. */
    void displaced(Job v) {
        preemptibleJobs--;
        for (ReplicaPlacement r : v.placement) {
            Integer i = index.get(r.nodeId());
            if (i != null) {
                int g = r.gpuIndices().size();
                if (v.mode == ChargeMode.UNALLOCATED) {
                    unallocated[i] -= g;
                } else {
                    allocated[i] -= g;
                }
            }
        }
    }

    /**
     * @param eligible whether a node may take a replica
     * @param allowed whether the preemptor may displace this allocated job (unallocated: always)
     */
    Selection select(int replicas, int gpus, Eligibility eligible, Predicate<Job> allowed) {
        Selection s = trySelect(replicas, gpus, eligible, allowed, false);
        return s != null ? s : trySelect(replicas, gpus, eligible, allowed, true);
    }

    /** Is there any eligible node with a victim this preemptor may displace? Stops at the first. */
    boolean anyVictim(Eligibility eligible, Predicate<Job> allowed) {
        for (int i = 0; i < nodes.length; i++) {
            if (victims[i] == null || unallocated[i] + allocated[i] == 0) {
                continue;
            }
            boolean found = false;
            for (Job v : victims[i]) {
                if (usable(v, true, allowed)) {
                    found = true;
                    break;
                }
            }
            if (found && eligible.test(nodes[i])) {
                return true;
            }
        }
        return false;
    }

    private boolean usable(Job v, boolean withAllocated, Predicate<Job> allowed) {
        if (v.state != JobState.RUNNING || v.placedInPass == pass) {
            return false;
        }
        if (v.mode == ChargeMode.UNALLOCATED) {
            return true;
        }
        return withAllocated && allowed.test(v);
    }

    /**
     * One scan: the cost of each node on its own (rules 2 and 3), then the {@code replicas}
     * cheapest. Extra GPUs a displaced gang frees elsewhere are not counted on (never needed for
     * correctness: each chosen node has room from its own victims).
     */
    private Selection trySelect(int replicas, int gpus, Eligibility eligible, Predicate<Job> allowed,
            boolean withAllocated) {
        int n = nodes.length;
        long[] cost = new long[n]; // allocated GPUs lost << 32 | GPUs lost, or -1 when infeasible
        Arrays.fill(cost, -1);
        int feasible = 0;
        for (int i = 0; i < n; i++) {
            Node node = nodes[i];
            int f = node.freeGpus();
            if (f < gpus) {
                int potential = f + unallocated[i] + (withAllocated ? allocated[i] : 0);
                if (potential < gpus || victims[i] == null) {
                    continue;
                }
            }
            if (!eligible.test(node)) {
                continue;
            }
            long alloc = 0;
            long lost = 0;
            if (f < gpus) {
                Job[] vs = victims[i];
                for (int k = 0; k < vs.length && f < gpus; k++) {
                    Job v = vs[k];
                    if (!usable(v, withAllocated, allowed)) {
                        continue;
                    }
                    f += gpusHere[i][k];
                    lost += v.gpus();
                    if (v.mode == ChargeMode.ALLOCATED) {
                        alloc += v.gpus();
                    }
                }
                if (f < gpus) {
                    continue;
                }
            }
            cost[i] = alloc << 32 | lost;
            feasible++;
        }
        if (feasible < replicas) {
            return null;
        }
        // the cheapest nodes; ties by node id (array order). Costs are packed with the index into one
        // long (allocated lost: 20 bits, lost: 23 bits, index: 20 bits) so sorting is primitive.
        long[] order = new long[feasible];
        int k = 0;
        for (int i = 0; i < n; i++) {
            if (cost[i] >= 0) {
                long alloc = Math.min(cost[i] >>> 32, (1L << 20) - 1);
                long lost = Math.min(cost[i] & 0xffffffffL, (1L << 23) - 1);
                order[k++] = alloc << 43 | lost << 20 | i;
            }
        }
        if (replicas == 1) {
            long min = order[0];
            for (long o : order) {
                min = Math.min(min, o);
            }
            order[0] = min;
        } else {
            Arrays.sort(order);
        }
        LinkedHashSet<Job> removed = new LinkedHashSet<>();
        ArrayList<Node> chosen = new ArrayList<>(replicas);
        for (int r = 0; r < replicas; r++) {
            int i = (int) (order[r] & ((1L << 20) - 1));
            int f = nodes[i].freeGpus();
            if (f < gpus) {
                Job[] vs = victims[i];
                for (int v = 0; v < vs.length && f < gpus; v++) {
                    if (!usable(vs[v], withAllocated, allowed)) {
                        continue;
                    }
                    removed.add(vs[v]);
                    f += gpusHere[i][v];
                }
            }
            chosen.add(nodes[i]);
        }
        return new Selection(List.copyOf(removed), List.copyOf(chosen));
    }
}
