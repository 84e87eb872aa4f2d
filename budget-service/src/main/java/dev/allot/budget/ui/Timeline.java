package dev.allot.budget.ui;

import dev.allot.schemas.GpuAssignment;
import dev.allot.schemas.JobEvent;
import dev.allot.schemas.JobLost;
import dev.allot.schemas.JobPlaced;
import dev.allot.schemas.JobPreempted;
import dev.allot.schemas.JobState;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Who held which GPU of which node, when: one segment per (job run, node, GPU), opened by
 * {@code JobPlaced} and closed by the next scheduler event that leaves the job not RUNNING. How a
 * run ended is kept (preempted, with whom; lost node; completed ...) so the picture can mark it.
 * Segments that ended more than {@link #RETAIN_MILLIS} before the newest event are dropped.
 */
final class Timeline {

    static final long RETAIN_MILLIS = 48 * 3_600_000L;

    /** One GPU held by one run of a job; {@code endMillis} is -1 while it runs. */
    record Segment(String cluster, String nodeId, int gpu, String jobId, String account, long startMillis,
                   long endMillis, String endedBy, String preemptor) {
        Segment end(long at, String how, String by) {
            return new Segment(cluster, nodeId, gpu, jobId, account, startMillis, at, how, by);
        }
    }

    private final List<Segment> ended = new ArrayList<>();
    /** jobId -> the open segments of its current run. */
    private final Map<String, List<Segment>> open = new HashMap<>();
    private long newest;

    synchronized void event(JobEvent event) {
        long at = event.getOccurredAt().toEpochMilli();
        newest = Math.max(newest, at);
        String jobId = event.getJobId();
        if (event.getPayload() instanceof JobPlaced placed) {
            close(jobId, at, "replaced", null);
            List<Segment> run = new ArrayList<>();
            for (GpuAssignment a : placed.getAssignments()) {
                for (int gpu : a.getGpuIndices()) {
                    run.add(new Segment(placed.getCluster(), a.getNodeId(), gpu, jobId, placed.getBudget(), at, -1, null,
                            null));
                }
            }
            open.put(jobId, run);
            return;
        }
        JobState after = event.getStateAfter();
        if (after == null || after == JobState.RUNNING) {
            return; // agent reports, or nothing that ends the run
        }
        switch (event.getPayload()) {
            case JobPreempted p -> close(jobId, at, "preempted " + p.getReason(), p.getPreemptorJobId());
            case JobLost l -> close(jobId, at, "node lost", null);
            default -> close(jobId, at, after.name().toLowerCase(), null);
        }
        if (ended.size() > 10_000) {
            ended.removeIf(s -> s.endMillis() < newest - RETAIN_MILLIS);
        }
    }

    private void close(String jobId, long at, String how, String by) {
        List<Segment> run = open.remove(jobId);
        if (run != null) {
            run.forEach(s -> ended.add(s.end(at, how, by)));
        }
    }

    /** Segments of the cluster that overlap [from, to). */
    synchronized List<Segment> between(String cluster, long from, long to) {
        List<Segment> out = new ArrayList<>();
        for (Segment s : ended) {
            if (s.cluster().equals(cluster) && s.endMillis() > from && s.startMillis() < to) {
                out.add(s);
            }
        }
        open.values().forEach(run -> run.stream()
                .filter(s -> s.cluster().equals(cluster) && s.startMillis() < to).forEach(out::add));
        return out;
    }
}
