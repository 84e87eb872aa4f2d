package dev.allot.chaos;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Who held which GPU when, and how long two different jobs held the same GPU at once. One {@link Hold} per
 * (job, node, GPU index) and interval; the overlap is measured per GPU as the time during which at least two
 * different jobs hold it (three jobs at once count that time once: the GPU was shared, not the jobs).
 */
final class GpuTime {

    /** A job holding one GPU of one node from {@code start} (inclusive) to {@code end} (exclusive), epoch millis. */
    record Hold(String jobId, String nodeId, int gpu, long start, long end) {
        Hold {
            if (end < start) {
                throw new IllegalArgumentException("hold of " + jobId + " ends before it starts: " + start + " > " + end);
            }
        }
    }

    /** One GPU-second-weighted overlap: the GPU, when, and the jobs that held it together. */
    record Overlap(String nodeId, int gpu, long start, long end, List<String> jobs) {
        double seconds() {
            return (end - start) / 1000.0;
        }
    }

    private GpuTime() {
    }

    /** The overlaps of holds by different jobs, per GPU, in time order; their seconds summed are the shared GPU-seconds. */
    static List<Overlap> overlaps(List<Hold> holds) {
        Map<String, List<Hold>> byGpu = new TreeMap<>();
        for (Hold hold : holds) {
            if (hold.end() > hold.start()) {
                byGpu.computeIfAbsent(hold.nodeId() + "#" + hold.gpu(), k -> new ArrayList<>()).add(hold);
            }
        }
        List<Overlap> out = new ArrayList<>();
        for (List<Hold> gpuHolds : byGpu.values()) {
            out.addAll(sweep(gpuHolds));
        }
        return out;
    }

    static double sharedSeconds(List<Hold> holds) {
        return overlaps(holds).stream().mapToDouble(Overlap::seconds).sum();
    }

    /** A sweep over one GPU's start and end points, counting holds per job (a job may hold it twice, e.g. re-placed). */
    private static List<Overlap> sweep(List<Hold> holds) {
        record Edge(long at, int delta, String jobId) {
        }
        List<Edge> edges = new ArrayList<>();
        for (Hold hold : holds) {
            edges.add(new Edge(hold.start(), +1, hold.jobId()));
            edges.add(new Edge(hold.end(), -1, hold.jobId()));
        }
        // ends before starts at the same instant: a GPU released at t and given again at t is not shared
        edges.sort(Comparator.comparingLong(Edge::at).thenComparingInt(Edge::delta));
        Map<String, Integer> active = new HashMap<>();
        List<Overlap> out = new ArrayList<>();
        long since = 0;
        for (Edge edge : edges) {
            if (active.size() >= 2 && edge.at() > since) {
                Hold any = holds.get(0);
                out.add(new Overlap(any.nodeId(), any.gpu(), since, edge.at(), List.copyOf(new java.util.TreeSet<>(active.keySet()))));
            }
            active.merge(edge.jobId(), edge.delta(), (a, b) -> a + b == 0 ? null : a + b);
            since = edge.at();
        }
        return out;
    }
}
