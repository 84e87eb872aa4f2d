package dev.allot.core.preemption;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Chooses whom to displace so a gang of {@code replicas} x {@code gpusPerReplica} fits.
 *
 * <p>Rules, in the order the code applies them:
 * <ol>
 *   <li>Unallocated candidates only are tried first; allocated candidates are added only when
 *       unallocated ones cannot make room (phase 1, then phase 2).</li>
 *   <li>Replicas are placed one node at a time (greedy); each step takes the eligible node that
 *       costs least: fewest allocated GPUs lost, then fewest GPUs lost (whole gangs count), then
 *       node id. A node whose free GPUs already suffice costs nothing.</li>
 *   <li>On a node, candidates are taken in {@link #VICTIM_ORDER}: unallocated first, then fewest
 *       GPUs, then resumable, then least work since the last checkpoint, then job id, until the
 *       node has room.</li>
 *   <li>A displaced gang frees its GPUs on every node it spans.</li>
 * </ol>
 */
public final class VictimSelector {

    /** Rule 3. */
    public static final Comparator<Candidate> VICTIM_ORDER = Comparator.comparing(Candidate::allocated)
            .thenComparingInt(Candidate::gpus)
            .thenComparing(c -> !c.resumable())
            .thenComparingLong(Candidate::workSinceCheckpointMillis)
            .thenComparing(Candidate::jobId);

    /** The victims (in displacement order) and the nodes the replicas go to (one per replica). */
    public record Selection(List<Candidate> victims, List<String> nodes) {
    }

    private VictimSelector() {
    }

    /**
     * @param freeByNode eligible nodes (id to free GPUs now)
     * @param candidates displaceable jobs; those on nodes not in {@code freeByNode} still free GPUs there
     */
    public static Optional<Selection> select(int replicas, int gpusPerReplica, SortedMap<String, Integer> freeByNode,
            List<Candidate> candidates) {
        List<Candidate> unallocated = candidates.stream().filter(c -> !c.allocated()).toList();
        Optional<Selection> s = trySelect(replicas, gpusPerReplica, freeByNode, unallocated);
        if (s.isPresent() || unallocated.size() == candidates.size()) {
            return s;
        }
        return trySelect(replicas, gpusPerReplica, freeByNode, candidates);
    }

    private static Optional<Selection> trySelect(int replicas, int gpus, SortedMap<String, Integer> freeByNode,
            List<Candidate> candidates) {
        // Quick bound: nodes that could reach the size even if every candidate on them went.
        TreeMap<String, List<Candidate>> onNode = new TreeMap<>();
        for (Candidate c : candidates) {
            for (String n : c.gpusByNode().keySet()) {
                if (freeByNode.containsKey(n)) {
                    onNode.computeIfAbsent(n, k -> new ArrayList<>()).add(c);
                }
            }
        }
        int possible = 0;
        for (Map.Entry<String, Integer> e : freeByNode.entrySet()) {
            int potential = e.getValue();
            for (Candidate c : onNode.getOrDefault(e.getKey(), List.of())) {
                potential += c.gpusByNode().get(e.getKey());
            }
            if (potential >= gpus) {
                possible++;
            }
        }
        if (possible < replicas) {
            return Optional.empty();
        }
        for (List<Candidate> l : onNode.values()) {
            l.sort(VICTIM_ORDER);
        }
        HashMap<String, Integer> free = new HashMap<>(freeByNode);
        LinkedHashSet<Candidate> removed = new LinkedHashSet<>();
        ArrayList<String> chosen = new ArrayList<>();
        for (int r = 0; r < replicas; r++) {
            String bestNode = null;
            List<Candidate> bestTake = null;
            long bestAlloc = Long.MAX_VALUE;
            long bestLost = Long.MAX_VALUE;
            for (String n : freeByNode.keySet()) {
                if (chosen.contains(n)) {
                    continue;
                }
                int f = free.get(n);
                List<Candidate> take = new ArrayList<>();
                long alloc = 0;
                long lost = 0;
                if (f < gpus) {
                    for (Candidate c : onNode.getOrDefault(n, List.of())) {
                        if (removed.contains(c)) {
                            continue;
                        }
                        take.add(c);
                        f += c.gpusByNode().get(n);
                        lost += c.gpus();
                        if (c.allocated()) {
                            alloc += c.gpus();
                        }
                        if (f >= gpus) {
                            break;
                        }
                    }
                }
                if (f < gpus) {
                    continue;
                }
                if (alloc < bestAlloc || (alloc == bestAlloc && lost < bestLost)) {
                    bestNode = n;
                    bestTake = take;
                    bestAlloc = alloc;
                    bestLost = lost;
                    if (alloc == 0 && lost == 0) {
                        break; // nodes are walked in id order: the first free one wins
                    }
                }
            }
            if (bestNode == null) {
                return Optional.empty();
            }
            for (Candidate c : bestTake) {
                removed.add(c);
                for (Map.Entry<String, Integer> e : c.gpusByNode().entrySet()) {
                    free.computeIfPresent(e.getKey(), (k, v) -> v + e.getValue());
                }
            }
            chosen.add(bestNode);
        }
        return Optional.of(new Selection(List.copyOf(removed), List.copyOf(chosen)));
    }
}
