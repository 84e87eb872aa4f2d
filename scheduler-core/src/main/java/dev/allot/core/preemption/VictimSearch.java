package dev.allot.core.preemption;

import dev.allot.core.JobView;
import dev.allot.core.ReplicaPlacement;
import dev.allot.core.cluster.Node;
import dev.allot.core.state.ClusterState;
import dev.allot.core.state.Job;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Victim search for one pass over one cluster, applying the rules of {@link VictimOrder}. Built
 * lazily at the first preemption attempt of a pass from the cluster's {@link PreemptibleIndex}
 * (brought up to the pass's time first): per node (array index in id order), how many GPUs of
 * preemptible-now jobs are unallocated or allocated, and, listed and sorted in victim order when a
 * search first looks at the node, those jobs. Jobs displaced during the pass are subtracted; jobs
 * placed during the pass are never victims in it.
 *
 * <p>A pass makes hundreds of searches over a thousand nodes, so a search visits only the nodes
 * that can reach the size ({@link NodeReach}, in id order as a full scan would), and a one-replica
 * search skips nodes whose lowest possible cost cannot beat the cheapest found so far. Both only
 * skip nodes that could not be chosen: the choice is the same as a scan of every node.
 * Internal.
 */
public final class VictimSearch {

    /** The victims to displace, in the order taken, and the nodes for the preemptor's replicas. */
    public record Selection(List<Job> victims, List<Node> nodes) {
    }

    /**
     * Nodes (bitset words over node indices) holding preemptible work of some accounts: those
     * with unallocated work of the unallocated set, and with work of either kind of the two sets.
     */
    public record NodeMask(long[] unallocatedOnly, long[] withAllocated) {
    }

    /** Whether a node may take the preemptor's replica (drain, size, reservations). */
    public interface Eligibility {
        boolean test(Node n);
    }

    private final ClusterState cs;
    private final Node[] nodes;
    private final Job[][] victims;
    private final Comparator<JobView> order;
    private final int[][] gpusHere;
    private final int[] unallocated;
    private final int[] allocated;
    /**
     * Unallocated victims' GPUs still counted per node, kept exactly (only for victims listed on the
     * node): what bounds a node's allocated loss from below when a search prunes.
     */
    private final int[] unallocatedLeft;
    private final long now;
    /** Per GPU, the work a restart costs ({@link VictimOrder#lostMillis}). */
    private final long restartMillis;
    /** Jobs placed during this pass: never victims in it. */
    private final Set<Job> placedThisPass;
    private int preemptibleJobs;
    /**
     * Nodes by how many GPUs they could offer: free + unallocated victims' (first index) and free +
     * all victims' (second). During a pass a node's free count rises only when a victim here is
     * displaced, which takes as many GPUs off its victims, so these bounds never go stale upwards.
     */
    private final NodeReach reachUnallocated;
    private final NodeReach reachAll;
    /** By account id, the nodes (bitset words) with its preemptible allocated [0] and unallocated [1] work, built on first use. */
    private java.util.HashMap<Integer, long[][]> nodesOfAccount;
    /** Feasible nodes of a multi-replica search, reused across searches. */
    private long[] found = new long[16];

    /**
     * @param cs the cluster, whose nodes and preemptible index are read (not modified); its index
     *     must be brought up to {@code now} first
     * @param placedThisPass the jobs placed so far in this pass, kept up to date by the pass
     */
    public VictimSearch(ClusterState cs, long now, long restartMillis, Set<Job> placedThisPass) {
        this.now = now;
        this.restartMillis = restartMillis;
        this.placedThisPass = placedThisPass;
        this.cs = cs;
        this.nodes = cs.nodeArray();
        // the cluster keeps the sums; each node's victims are listed when a search first looks there
        unallocated = cs.preemptible.unallocated(cs).clone();
        allocated = cs.preemptible.allocated(cs).clone();
        preemptibleJobs = cs.preemptible.jobs();
        victims = new Job[nodes.length][];
        order = VictimOrder.at(now, restartMillis);
        gpusHere = new int[nodes.length][];
        unallocatedLeft = unallocated.clone();
        int[] keyUnallocated = new int[nodes.length];
        int[] keyAll = new int[nodes.length];
        for (int i = 0; i < nodes.length; i++) {
            keyUnallocated[i] = reach(i, false);
            keyAll[i] = reach(i, true);
        }
        reachUnallocated = new NodeReach(keyUnallocated);
        reachAll = new NodeReach(keyAll);
    }

    /** What node i could offer now: a search for G GPUs visits it iff this is at least G. */
    private int reach(int i, boolean withAllocated) {
        int f = nodes[i].freeGpus();
        return Math.max(f, f + unallocated[i] + (withAllocated ? allocated[i] : 0));
    }


    /** GPUs the victim holds on node i (its replicas name their nodes; one replica per node). */
    private int gpusOn(Job v, int i) {
        int g = 0;
        String here = nodes[i].nodeId();
        for (ReplicaPlacement r : v.placement()) {
            if (r.nodeId().equals(here)) {
                g = r.gpuIndices().size();
            }
        }
        return g;
    }

    /**
     * Node i's victims in victim order, sorted on first use (most nodes are never looked at in a
     * pass). Sort keys changed since the search was built only for jobs displaced or placed in this
     * pass, which are never usable again in it, so the usable victims keep the order they had then.
     */
    private Job[] victimsOf(int i) {
        if (victims[i] == null) {
            victims[i] = listVictims(i);
            Arrays.sort(victims[i], order);
            gpusHere[i] = new int[victims[i].length];
            for (int k = 0; k < victims[i].length; k++) {
                gpusHere[i][k] = gpusOn(victims[i][k], i);
            }
        }
        return victims[i];
    }

    /**
     * Node i's jobs that may be preempted now, as the index counts them (see the constructor): jobs
     * placed since the search was built are listed too but never usable in this pass; jobs
     * displaced since then have left the node.
     */
    private Job[] listVictims(int i) {
        return cs.preemptible.on(cs, i).toArray(new Job[0]);
    }

    public boolean nothingPreemptible() {
        return preemptibleJobs == 0;
    }

    /** A victim was displaced: its GPUs are no longer there to take. */
    public void displaced(Job v) {
        preemptibleJobs--;
        int[] at = cs.nodeIndices(v);
        for (int k = 0; k < at.length; k++) {
            int i = at[k];
            if (i >= 0) {
                ReplicaPlacement r = v.placement().get(k);
                int g = r.gpuIndices().size();
                if (v.unallocated()) {
                    unallocated[i] -= g;
                    if (nodes[i].epoch() == r.nodeEpoch()) {
                        unallocatedLeft[i] -= g;
                    }
                } else {
                    allocated[i] -= g;
                }
            }
        }
    }

    /**
     * @param eligible whether a node may take a replica
     * @param allowed whether the preemptor may displace this job (unallocated ones too: the no-thrash guard may bar them)
     * @param allocatedToo whether {@code allowed} may accept any allocated job: if not, a search
     *     with allocated victims would choose among the same victims and fail again
     */
    public Selection select(int replicas, int gpus, Eligibility eligible, Predicate<Job> allowed, boolean allocatedToo) {
        return select(replicas, gpus, eligible, allowed, allocatedToo, null);
    }

    /**
     * As {@link #select(int, int, Eligibility, Predicate, boolean)}, looking only at the nodes of
     * {@code where} and those free enough: {@code allowed} must accept no job outside them (see
     * {@link #nodesHosting}); null looks everywhere. Most searches that fail find no usable victim
     * on most nodes they look at; this skips those nodes without asking about each job.
     */
    public Selection select(int replicas, int gpus, Eligibility eligible, Predicate<Job> allowed, boolean allocatedToo,
            NodeMask where) {
        Selection s = trySelect(replicas, gpus, eligible, allowed, false, where == null ? null : where.unallocatedOnly());
        return s != null || !allocatedToo ? s
                : trySelect(replicas, gpus, eligible, allowed, true, where == null ? null : where.withAllocated());
    }

    /**
     * The nodes holding preemptible work of the accounts given (bitsets over account ids): with
     * unallocated work of {@code unallocatedAccounts}, and besides with allocated work of
     * {@code allocatedAccounts}. Victims displaced since the search was built may still count: a
     * superset.
     */
    public NodeMask nodesHosting(long[] allocatedAccounts, long[] unallocatedAccounts) {
        if (nodesOfAccount == null) {
            nodesOfAccount = new java.util.HashMap<>();
            for (Job r : cs.preemptible.countedJobs()) {
                long[][] byMode = nodesOfAccount.computeIfAbsent(r.accountId(), a -> new long[2][]);
                int mode = r.unallocated() ? 1 : 0;
                if (byMode[mode] == null) {
                    byMode[mode] = new long[(nodes.length + 63) >>> 6];
                }
                for (int i : cs.nodeIndices(r)) {
                    if (i >= 0) {
                        byMode[mode][i >>> 6] |= 1L << i;
                    }
                }
            }
        }
        long[] unallocatedOnly = new long[(nodes.length + 63) >>> 6];
        orNodes(unallocatedAccounts, 1, unallocatedOnly);
        long[] both = unallocatedOnly.clone();
        orNodes(allocatedAccounts, 0, both);
        return new NodeMask(unallocatedOnly, both);
    }

    private void orNodes(long[] accounts, int mode, long[] into) {
        for (int w = 0; w < accounts.length; w++) {
            for (long bits = accounts[w]; bits != 0; bits &= bits - 1) {
                long[][] byMode = nodesOfAccount.get(w << 6 | Long.numberOfTrailingZeros(bits));
                long[] on = byMode == null ? null : byMode[mode];
                for (int k = 0; on != null && k < on.length; k++) {
                    into[k] |= on[k];
                }
            }
        }
    }


    private boolean usable(Job v, boolean withAllocated, Predicate<Job> allowed) {
        if (!v.running() || (v.placedAtMillis() == now && placedThisPass.contains(v))) {
            return false;
        }
        return (v.unallocated() || withAllocated) && allowed.test(v);
    }

    /**
     * One scan: the cost of each node on its own (rules 2 and 3), then the {@code replicas}
     * cheapest. Extra GPUs a displaced gang frees elsewhere are not counted on (never needed for
     * correctness: each chosen node has room from its own victims).
     */
    private Selection trySelect(int replicas, int gpus, Eligibility eligible, Predicate<Job> allowed,
            boolean withAllocated, long[] where) {
        NodeReach reach = withAllocated ? reachAll : reachUnallocated;
        long[] candidates = reach.atLeast(gpus);
        if (candidates == null) {
            return null;
        }
        // Feasible nodes as cost packed with the index (see packed): the cheapest first, ties by
        // node id (array order).
        int feasible = 0;
        long min = Long.MAX_VALUE;
        for (int w = 0; w < candidates.length; w++) {
            for (long bits = candidates[w]; bits != 0; bits &= bits - 1) {
                int i = w << 6 | Long.numberOfTrailingZeros(bits);
                int now = reach(i, withAllocated);
                reach.lower(i, now); // (candidates[w] was copied into bits: safe while walking it)
                if (now < gpus) {
                    continue;
                }
                if (where != null && (where[w] & 1L << i) == 0 && nodes[i].freeGpus() < gpus) {
                    continue; // no victim it may take here, and not free enough without one
                }
                if (replicas == 1 && min != Long.MAX_VALUE
                        && packed(lowerBound(i, gpus, withAllocated), 0) >= (min & ~INDEX_MASK)) {
                    continue; // cannot beat the cheapest so far (which also has the lower id)
                }
                long cost = cost(i, gpus, eligible, allowed, withAllocated);
                if (cost < 0) {
                    continue;
                }
                long packed = packed(cost, i);
                if (replicas == 1) {
                    min = Math.min(min, packed);
                } else {
                    if (feasible == found.length) {
                        found = Arrays.copyOf(found, feasible * 2);
                    }
                    found[feasible] = packed;
                }
                feasible++;
            }
        }
        if (feasible < replicas) {
            return null;
        }
        long[] order;
        if (replicas == 1) {
            order = new long[] {min};
        } else {
            order = found;
            Arrays.sort(order, 0, feasible);
        }
        LinkedHashSet<Job> removed = new LinkedHashSet<>();
        ArrayList<Node> chosen = new ArrayList<>(replicas);
        for (int r = 0; r < replicas; r++) {
            int i = (int) (order[r] & INDEX_MASK);
            if (choose(i, gpus, allowed, withAllocated) > 0) {
                Job[] vs = victimsOf(i);
                for (int k = 0; k < picked; k++) {
                    removed.add(vs[pick[k]]);
                }
            }
            chosen.add(nodes[i]);
        }
        return new Selection(List.copyOf(removed), List.copyOf(chosen));
    }

    private static final long INDEX_MASK = (1L << 20) - 1;
    private static final long SECOND = 1_000L;

    /** Cost (allocated GPU-seconds lost << 32 | GPU-seconds lost) and node index in one long that sorts by all three: 20, 23 and 20 bits (larger costs tie). */
    private static long packed(long cost, int i) {
        return Math.min(cost >>> 32, (1L << 20) - 1) << 43 | Math.min(cost & 0xffffffffL, (1L << 23) - 1) << 20 | i;
    }

    /** GPU-seconds, rounded up, capped to fit {@link #packed}'s fields. */
    private static long seconds(long gpuMillis) {
        return Math.min((gpuMillis + SECOND - 1) / SECOND, 0x7fffffffL);
    }

    /**
     * A cost node i cannot go below (as {@link #cost}): it must free {@code gpus - free} GPUs, each
     * losing at least a restart, and whatever its unallocated victims cannot free must come from
     * allocated ones (a victim loses at least the GPUs it frees here).
     */
    private long lowerBound(int i, int gpus, boolean withAllocated) {
        int missing = Math.max(0, gpus - nodes[i].freeGpus());
        long alloc = withAllocated ? Math.max(0, missing - unallocatedLeft[i]) : 0;
        return seconds(alloc * restartMillis) << 32 | seconds(missing * restartMillis);
    }

    /**
     * The cost of node i on its own (rules 2 and 3): allocated work lost << 32 | work lost (GPU-seconds), or -1
     * when it is not eligible or its usable victims cannot make room.
     */
    private long cost(int i, int gpus, Eligibility eligible, Predicate<Job> allowed, boolean withAllocated) {
        if (!eligible.test(nodes[i])) {
            return -1;
        }
        int c = choose(i, gpus, allowed, withAllocated);
        return c < 0 ? -1 : c == 0 ? 0 : seconds(chosenAllocated) << 32 | seconds(chosenLost);
    }

    /** Victims {@link #choose} took on its node: indices into its {@link #victimsOf} list, {@link #picked} of them. */
    private int[] pick = new int[8];
    private int picked;
    /** What {@link #choose}'s victims lose, GPU-milliseconds: allocated ones, and all. */
    private long chosenAllocated;
    private long chosenLost;

    /**
     * Rule 3 of {@link VictimOrder}: node i's usable victims that make room for {@code gpus}, left in {@link #pick}.
     * Unallocated victims alone if they can make room; else all of them and the allocated victims
     * that make up the rest. Within each kind, the cheaper of: the victims in victim order until there
     * is room, without those the later ones made needless; and the first victim in that order that
     * frees enough on its own. Taking victims in order alone would displace four one-GPU jobs that
     * each lose a little rather than the four-GPU job that loses less than the four together.
     * Returns -1 if the usable victims cannot make room, 0 if none is needed, else 1.
     */
    private int choose(int i, int gpus, Predicate<Job> allowed, boolean withAllocated) {
        picked = 0;
        chosenAllocated = 0;
        chosenLost = 0;
        int missing = gpus - nodes[i].freeGpus();
        if (missing <= 0) {
            return 0;
        }
        Job[] vs = victimsOf(i);
        if (pick.length < vs.length) {
            pick = new int[vs.length];
        }
        int unallocatedEnd = 0; // victim order lists the unallocated first
        int unallocatedGpus = 0;
        while (unallocatedEnd < vs.length && vs[unallocatedEnd].unallocated()) {
            if (usable(vs[unallocatedEnd], withAllocated, allowed)) {
                unallocatedGpus += gpusHere[i][unallocatedEnd];
            }
            unallocatedEnd++;
        }
        if (unallocatedGpus >= missing) {
            chooseAmong(i, 0, unallocatedEnd, missing, allowed, withAllocated);
            return 1;
        }
        for (int k = 0; k < unallocatedEnd; k++) {
            if (usable(vs[k], withAllocated, allowed)) {
                pick[picked++] = k;
                long w = VictimOrder.lostMillis(vs[k], now, restartMillis);
                chosenLost += w;
                chosenAllocated += vs[k].allocated() ? w : 0;
            }
        }
        return chooseAmong(i, unallocatedEnd, vs.length, missing - unallocatedGpus, allowed, withAllocated) ? 1 : -1;
    }

    /**
     * Adds to {@link #pick} the victims of {@code [from, to)} that free {@code need} GPUs losing least (see
     * {@link #choose}), and what they lose to {@link #chosenLost} / {@link #chosenAllocated}; false if they cannot.
     */
    private boolean chooseAmong(int i, int from, int to, int need, Predicate<Job> allowed, boolean withAllocated) {
        Job[] vs = victimsOf(i);
        int[] here = gpusHere[i];
        int start = picked;
        int freed = 0;
        int single = -1;
        for (int k = from; k < to && (freed < need || single < 0); k++) {
            if (!usable(vs[k], withAllocated, allowed)) {
                continue;
            }
            if (single < 0 && here[k] >= need) {
                single = k;
            }
            if (freed < need) {
                pick[picked++] = k;
                freed += here[k];
            }
        }
        if (freed < need) {
            picked = start;
            return false;
        }
        // needless victims: the last one taken is needed; of the others, drop the dearest first
        for (int k = picked - 2; k >= start; k--) {
            if (freed - here[pick[k]] >= need) {
                freed -= here[pick[k]];
                pick[k] = -1;
            }
        }
        long lost = 0;
        long alloc = 0;
        int n = start;
        for (int k = start; k < picked; k++) {
            if (pick[k] >= 0) {
                long w = VictimOrder.lostMillis(vs[pick[k]], now, restartMillis);
                lost += w;
                alloc += vs[pick[k]].allocated() ? w : 0;
                pick[n++] = pick[k];
            }
        }
        picked = n;
        if (single >= 0 && picked - start > 1) {
            long w = VictimOrder.lostMillis(vs[single], now, restartMillis);
            if (w <= lost) {
                picked = start;
                pick[picked++] = single;
                lost = w;
                alloc = vs[single].allocated() ? w : 0;
            }
        }
        chosenLost += lost;
        chosenAllocated += alloc;
        return true;
    }
}
