package dev.allot.simulator.whatif;

import dev.allot.schemas.BudgetDefined;
import dev.allot.schemas.BudgetEvent;
import dev.allot.schemas.BudgetRemoved;
import dev.allot.schemas.ChargeMode;
import dev.allot.schemas.JobAccepted;
import dev.allot.schemas.JobCancelled;
import dev.allot.schemas.JobCheckpointed;
import dev.allot.schemas.JobCompleted;
import dev.allot.schemas.JobEvent;
import dev.allot.schemas.JobFailed;
import dev.allot.schemas.JobLost;
import dev.allot.schemas.JobPlaced;
import dev.allot.schemas.JobPreempted;
import dev.allot.schemas.JobRejected;
import dev.allot.schemas.JobRequeued;
import dev.allot.schemas.JobRequest;
import dev.allot.schemas.JobSubmitted;
import dev.allot.schemas.NodeRegistered;
import dev.allot.schemas.NodeStatus;
import dev.allot.simulator.scenario.BudgetFile;
import dev.allot.simulator.trace.TraceJob;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Builds a simulator trace from the recorded log: {@code job-requests}, {@code job-events}, {@code budgets}
 * and {@code node-status} records, fed in log order (per topic; one job's records are on one partition), then
 * {@link #build} for one cluster and a window [from, to).
 *
 * <p>A job is one trace job however often it ran: its runs (placement to preemption, loss, requeue,
 * completion, failure or cancellation) are joined. Its duration, the run time it would need uninterrupted, is
 * the work it kept from interrupted runs (a resumable job keeps up to its last {@code JobCheckpointed} of that
 * run; a non-resumable one keeps nothing) plus its last run:
 * <ul>
 *   <li>ended (completed, failed, cancelled while running): as observed;</li>
 *   <li>running at the end of the window: its work so far, or its declared expected duration if longer;</li>
 *   <li>waiting at the end (never placed, or requeued): its declared expected duration, else the median duration
 *       of its team's jobs that ended in the window, else of all teams', else its minimum runtime, else an hour
 *       (and at least the work it kept);</li>
 *   <li>submitted before the window and still there at its start: enters at the window's start with the part of
 *       its work done inside the window (its wait is counted from the start);</li>
 *   <li>rejected, cancelled before ever running, or ended before the window: left out (counted in the notes).</li>
 * </ul>
 * The budget tree is the one recorded at the end of the window; the cluster is every node that registered for it
 * before the end (GPUs per node: the most common count).
 */
public final class LogTrace {

    /** Default duration when nothing else is known (no declaration, no team or global median, no minimum runtime). */
    static final long FALLBACK_DURATION_SECONDS = 3600;

    private static final class Run {
        final long placedAt;
        long endedAt = -1;
        long lastCheckpoint = -1;

        Run(long placedAt) {
            this.placedAt = placedAt;
        }
    }

    private static final class JobLog {
        final String id;
        String budget;
        String cluster;
        int replicas;
        int gpusPerReplica;
        long minRuntimeSeconds = -1;
        Boolean resumable;
        Long expectedSeconds;
        long submittedAt = Long.MIN_VALUE;
        boolean allocated = true;
        boolean rejected;
        String end; // completed, failed, cancelled
        long endedAt = -1;
        final List<Run> runs = new ArrayList<>();

        JobLog(String id) {
            this.id = id;
        }

        Run open() {
            if (runs.isEmpty()) {
                return null;
            }
            Run last = runs.get(runs.size() - 1);
            return last.endedAt < 0 ? last : null;
        }

        void close(long at) {
            Run r = open();
            if (r != null) {
                r.endedAt = Math.max(r.placedAt, at);
            }
        }

        boolean known() {
            return budget != null && cluster != null && replicas > 0 && gpusPerReplica > 0
                    && submittedAt != Long.MIN_VALUE;
        }
    }

    private final Map<String, JobLog> jobs = new LinkedHashMap<>();
    /** Account -> (parent, share), as defined last; in definition order. */
    private final List<BudgetChange> budgetLog = new ArrayList<>();
    private final Map<String, NodeRegistered> nodes = new LinkedHashMap<>();
    private final Map<String, Long> nodeRegisteredAt = new HashMap<>();

    private record BudgetChange(long at, String path, String parent, double share, boolean removed) {
    }

    private JobLog job(String id) {
        return jobs.computeIfAbsent(id, JobLog::new);
    }

    public void accept(JobRequest request) {
        if (request.getPayload() instanceof JobSubmitted s) {
            JobLog j = job(s.getJobId());
            j.budget = s.getBudget();
            j.cluster = s.getCluster();
            j.replicas = s.getReplicas();
            j.gpusPerReplica = s.getGpusPerReplica();
            j.minRuntimeSeconds = s.getMinRuntimeSeconds();
            j.resumable = s.getResumable();
            j.expectedSeconds = s.getExpectedDurationSeconds();
            j.submittedAt = s.getSubmittedAt().toEpochMilli();
            j.allocated = s.getMinRuntimeSeconds() > 0;
        }
        // JobCancelRequested: the scheduler's JobCancelled says what came of it
    }

    public void accept(JobEvent event) {
        JobLog j = job(event.getJobId());
        long at = event.getOccurredAt().toEpochMilli();
        switch (event.getPayload()) {
            case JobAccepted a -> {
                // the scheduler's copy of the request: fills in what job-requests no longer holds
                j.budget = j.budget == null ? a.getBudget() : j.budget;
                j.cluster = j.cluster == null ? a.getCluster() : j.cluster;
                if (j.replicas == 0) {
                    j.replicas = a.getReplicas();
                    j.gpusPerReplica = a.getGpusPerReplica();
                    j.minRuntimeSeconds = a.getMinRuntimeSeconds();
                    j.resumable = a.getResumable();
                    j.expectedSeconds = a.getExpectedDurationSeconds();
                }
                if (j.submittedAt == Long.MIN_VALUE) {
                    j.submittedAt = a.getQueuedAt().toEpochMilli();
                }
                j.allocated = a.getChargeMode() == ChargeMode.ALLOCATED;
            }
            case JobRejected r -> j.rejected = true;
            case JobPlaced p -> {
                j.close(at);
                j.runs.add(new Run(at));
                j.budget = j.budget == null ? p.getBudget() : j.budget;
                j.cluster = j.cluster == null ? p.getCluster() : j.cluster;
                j.allocated = p.getChargeMode() == ChargeMode.ALLOCATED;
            }
            case JobCheckpointed c -> {
                Run r = j.open();
                if (r != null) {
                    r.lastCheckpoint = Math.max(r.lastCheckpoint, at);
                }
            }
            case JobPreempted p -> {
                if (p.getRequeue()) {
                    j.close(at);
                } else {
                    end(j, "preempted", at); // not requeued: the job is over
                }
            }
            case JobLost l -> j.close(at);
            case JobRequeued r -> j.close(at);
            case JobCompleted c -> end(j, "completed", at);
            case JobFailed f -> end(j, "failed", at);
            case JobCancelled c -> end(j, "cancelled", at);
            default -> {
                // JobStarted, JobExited: the node agent's view of a run the scheduler's events already bound
            }
        }
        // whatever the event, a terminal state after it ends the job
        if (j.end == null && event.getStateAfter() != null) {
            switch (event.getStateAfter()) {
                case COMPLETED, FAILED, CANCELLED -> end(j, event.getStateAfter().name().toLowerCase(java.util.Locale.ROOT), at);
                case REJECTED -> j.rejected = true;
                default -> {
                }
            }
        }
    }

    private static void end(JobLog j, String how, long at) {
        j.close(at);
        j.end = how;
        j.endedAt = at;
    }

    public void accept(BudgetEvent event) {
        long at = event.getOccurredAt().toEpochMilli();
        switch (event.getPayload()) {
            case BudgetDefined d -> budgetLog.add(new BudgetChange(at, d.getPath(), d.getParent(), d.getShare(), false));
            case BudgetRemoved r -> budgetLog.add(new BudgetChange(at, r.getPath(), null, 0, true));
            default -> {
            }
        }
    }

    public void accept(NodeStatus status) {
        if (status.getPayload() instanceof NodeRegistered r) {
            nodes.put(status.getNodeId(), r);
            nodeRegisteredAt.putIfAbsent(status.getNodeId(), status.getOccurredAt().toEpochMilli());
        }
    }

    /** The clusters of the recorded nodes and jobs, sorted. */
    public List<String> clusters() {
        TreeSet<String> c = new TreeSet<>();
        nodes.values().forEach(n -> c.add(n.getCluster()));
        jobs.values().forEach(j -> {
            if (j.cluster != null) {
                c.add(j.cluster);
            }
        });
        return List.copyOf(c);
    }

    /** The budget tree as recorded at {@code at} (epoch ms): every account defined and not removed, parents first. */
    public BudgetFile budgetsAt(long at) {
        Map<String, BudgetChange> current = new LinkedHashMap<>();
        for (BudgetChange c : budgetLog) {
            if (c.at() > at) {
                continue;
            }
            if (c.removed()) {
                current.remove(c.path());
            } else {
                current.put(c.path(), c);
            }
        }
        List<BudgetFile.Entry> entries = new ArrayList<>();
        TreeSet<String> added = new TreeSet<>();
        // parents first: repeat passes until nothing more can be added (a child whose parent is gone is dropped)
        boolean progress = true;
        while (progress) {
            progress = false;
            for (BudgetChange c : current.values()) {
                if (!added.contains(c.path()) && (c.parent() == null || added.contains(c.parent()))) {
                    entries.add(new BudgetFile.Entry(c.path(), c.parent(), c.share()));
                    added.add(c.path());
                    progress = true;
                }
            }
        }
        return new BudgetFile(entries);
    }

    /**
     * The trace of one cluster over [from, to) (epoch ms). Submit times are seconds since {@code from}.
     *
     * @throws IllegalArgumentException when the cluster has no recorded node
     */
    public Trace build(String cluster, long from, long to) {
        Map<Integer, Integer> gpuCounts = new TreeMap<>();
        int nodeCount = 0;
        for (Map.Entry<String, NodeRegistered> n : nodes.entrySet()) {
            if (n.getValue().getCluster().equals(cluster) && nodeRegisteredAt.get(n.getKey()) < to) {
                nodeCount++;
                gpuCounts.merge(n.getValue().getGpuCount(), 1, Integer::sum);
            }
        }
        if (nodeCount == 0) {
            throw new IllegalArgumentException("--cluster " + cluster + ": no node of that cluster registered before "
                    + java.time.Instant.ofEpochMilli(to) + "; recorded clusters: " + String.join(", ", clusters()));
        }
        int gpusPerNode = gpuCounts.entrySet().stream().max(Map.Entry.<Integer, Integer>comparingByValue()
                .thenComparing(Map.Entry.comparingByKey())).orElseThrow().getKey();

        Notes notes = new Notes();
        notes.heterogeneousNodes = gpuCounts.size() > 1;
        List<JobLog> inWindow = new ArrayList<>();
        for (JobLog j : jobs.values()) {
            if (!cluster.equals(j.cluster) || !j.known() || j.submittedAt >= to) {
                continue;
            }
            List<Run> runs = runsBefore(j, to);
            boolean endedInTime = j.end != null && j.endedAt < to;
            if (j.submittedAt < from && (endedInTime ? j.endedAt <= from : j.rejected)) {
                continue; // over before the window
            }
            if (j.rejected) {
                notes.rejected++;
                continue;
            }
            if (endedInTime && runs.isEmpty()) {
                notes.endedUnplaced++; // cancelled (or failed) before it ever ran
                continue;
            }
            inWindow.add(j);
        }
        // durations of the jobs that ended inside the window, for the medians
        Map<String, List<Long>> endedByTeam = new TreeMap<>();
        List<Long> endedAll = new ArrayList<>();
        for (JobLog j : inWindow) {
            if (j.end != null && j.endedAt < to && j.submittedAt >= from) {
                long d = work(j, runsBefore(j, to), Long.MIN_VALUE, to);
                endedByTeam.computeIfAbsent(j.budget, k -> new ArrayList<>()).add(d);
                endedAll.add(d);
            }
        }
        List<TraceJob> trace = new ArrayList<>();
        Map<String, TeamRecord> recorded = new TreeMap<>();
        for (JobLog j : inWindow) {
            List<Run> runs = runsBefore(j, to);
            boolean carriedIn = j.submittedAt < from;
            long clip = carriedIn ? from : Long.MIN_VALUE;
            long kept = work(j, runs, clip, to);
            boolean ended = j.end != null && j.endedAt < to;
            Run open = runs.isEmpty() ? null : runs.get(runs.size() - 1);
            boolean running = !ended && open != null && (open.endedAt < 0 || open.endedAt >= to);
            long durationMs;
            if (ended) {
                durationMs = kept;
                notes.ended++;
            } else if (running) {
                long declared = declaredMs(j);
                durationMs = Math.max(kept, declared);
                if (declared > kept) {
                    notes.runningDeclared++;
                } else {
                    notes.runningSoFar++;
                }
            } else {
                long estimate = declaredMs(j);
                if (estimate > 0) {
                    notes.waitingDeclared++;
                } else if (endedByTeam.containsKey(j.budget)) {
                    estimate = median(endedByTeam.get(j.budget));
                    notes.waitingTeamMedian++;
                } else if (!endedAll.isEmpty()) {
                    estimate = median(endedAll);
                    notes.waitingAllMedian++;
                } else if (j.minRuntimeSeconds > 0) {
                    estimate = j.minRuntimeSeconds * 1000;
                    notes.waitingFallback++;
                } else {
                    estimate = FALLBACK_DURATION_SECONDS * 1000;
                    notes.waitingFallback++;
                }
                durationMs = Math.max(kept + 1000, estimate);
            }
            if (carriedIn) {
                notes.carriedIn++;
            }
            long submitMs = Math.max(0, j.submittedAt - from);
            trace.add(new TraceJob(j.id, j.budget, Math.round(submitMs / 1000.0), j.gpusPerReplica, j.replicas,
                    Math.max(1, Math.round(durationMs / 1000.0)), Math.max(0, j.minRuntimeSeconds),
                    j.resumable != null ? j.resumable : Boolean.FALSE, debugShape(j)));
            // what the cluster recorded in the window
            TeamRecord rec = recorded.computeIfAbsent(j.budget, k -> new TeamRecord());
            for (Run r : runs) {
                long s = Math.max(r.placedAt, from);
                long e = r.endedAt < 0 ? to : Math.min(r.endedAt, to);
                if (e > s) {
                    double gpuSeconds = (e - s) / 1000.0 * j.replicas * j.gpusPerReplica;
                    if (j.allocated) {
                        rec.deliveredGpuSeconds += gpuSeconds;
                    } else {
                        rec.unallocatedGpuSeconds += gpuSeconds;
                    }
                }
            }
            if ("completed".equals(j.end) && j.endedAt >= from && j.endedAt < to) {
                rec.completed++;
            }
            rec.jobs++;
        }
        trace.sort(Comparator.comparingLong(TraceJob::submitSeconds).thenComparing(TraceJob::jobId));
        return new Trace(trace, budgetsAt(to), nodeCount, gpusPerNode, recorded, notes);
    }

    /** The runs placed before {@code to}. */
    private static List<Run> runsBefore(JobLog j, long to) {
        List<Run> r = new ArrayList<>();
        for (Run run : j.runs) {
            if (run.placedAt < to) {
                r.add(run);
            }
        }
        return r;
    }

    /**
     * The work done (ms): what each interrupted run kept plus the last run (to its end, or to {@code to} while it
     * runs); runs, or their parts, before {@code clip} are left out.
     */
    private static long work(JobLog j, List<Run> runs, long clip, long to) {
        long total = 0;
        boolean resumable = Boolean.TRUE.equals(j.resumable);
        for (int i = 0; i < runs.size(); i++) {
            Run r = runs.get(i);
            long start = Math.max(r.placedAt, clip);
            boolean last = i == runs.size() - 1;
            long end = r.endedAt < 0 || r.endedAt > to ? to : r.endedAt;
            if (end <= start) {
                continue;
            }
            boolean finalRun = last && (j.end != null || r.endedAt < 0 || r.endedAt >= to);
            if (finalRun) {
                total += end - start;
            } else if (resumable && r.lastCheckpoint > start) {
                total += Math.min(r.lastCheckpoint, end) - start;
            } else if (!resumable) {
                total = 0; // it starts over
            }
        }
        return total;
    }

    private static long declaredMs(JobLog j) {
        return j.expectedSeconds != null && j.expectedSeconds > 0 ? j.expectedSeconds * 1000 : 0;
    }

    /** The core's debug shape with its default lane: allocated, minimum runtime of 15 minutes or less, at most 8 GPUs. */
    private static boolean debugShape(JobLog j) {
        int gpus = j.replicas * j.gpusPerReplica;
        return j.minRuntimeSeconds > 0 && j.minRuntimeSeconds <= dev.allot.core.metrics.JobClass.DEBUG_MAX_MIN_RUNTIME_SECONDS
                && gpus <= dev.allot.core.ordering.DebugLane.defaults().maxGpus();
    }

    private static long median(List<Long> values) {
        List<Long> sorted = new ArrayList<>(values);
        sorted.sort(null);
        return sorted.get((sorted.size() - 1) / 2);
    }

    /** What the cluster recorded for a team in the window. */
    public static final class TeamRecord {
        /** GPU-seconds held by its allocated runs inside the window. */
        public double deliveredGpuSeconds;
        public double unallocatedGpuSeconds;
        /** Jobs that completed inside the window. */
        public int completed;
        /** Trace jobs of the team. */
        public int jobs;
    }

    /** How the trace's durations were chosen, and what was left out. */
    public static final class Notes {
        public int ended;
        public int runningSoFar;
        public int runningDeclared;
        public int waitingDeclared;
        public int waitingTeamMedian;
        public int waitingAllMedian;
        public int waitingFallback;
        public int carriedIn;
        public int rejected;
        public int endedUnplaced;
        public boolean heterogeneousNodes;
    }

    /** A built trace: jobs, the tree as recorded, the cluster, the recorded figures per team. */
    public record Trace(List<TraceJob> jobs, BudgetFile budgets, int nodes, int gpusPerNode,
            Map<String, TeamRecord> recorded, Notes notes) {
    }
}
