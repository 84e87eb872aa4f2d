package dev.allot.core.estimate;

import dev.allot.core.Decision;
import dev.allot.core.JobRequest;
import dev.allot.core.JobState;
import dev.allot.core.JobView;
import dev.allot.core.Scheduler;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.TreeSet;

/**
 * One estimate's forward run, prepared by {@link StartEstimator#prepare} from the live core: a copy
 * of the core, the waiting jobs as they stood and the run-time figures as they stood. {@link #run}
 * reads none of the live core, so it may run on another thread while the live core goes on
 * deciding; the estimates are those of the jobs that waited at {@link #nowMillis}. Confined to one
 * thread at a time and run once (the copy is used up by it).
 */
public final class ForwardRun {

    private final long now;
    /** The live core's waiting jobs, in queue order per cluster. */
    private final List<String> queue;
    /** The copy of the live core, null when nothing waits. */
    private final Scheduler sim;
    private final RunTimeModel runTimes;
    private final long horizonMillis;
    private final StartEstimator.Steps steps;
    private boolean ran;
    private int passes;
    /** Jobs submitted into the copy as the run reaches their submit times, in that order. */
    private List<JobRequest> arrivals = List.of();

    ForwardRun(long now, List<String> queue, Scheduler sim, RunTimeModel runTimes, long horizonMillis,
            StartEstimator.Steps steps) {
        this.now = now;
        this.queue = List.copyOf(queue);
        this.sim = sim;
        this.runTimes = runTimes;
        this.horizonMillis = horizonMillis;
        this.steps = steps;
    }

    /** The live core's time when it was copied: where the forward run starts. */
    public long nowMillis() {
        return now;
    }

    /** How many jobs waited then (each gets an estimate). */
    public int waitingJobs() {
        return queue.size();
    }

    /**
     * Jobs to submit into the copy while it runs, each at its submit time (at the pass that reaches
     * it, like the ends), sorted here by submit time; those at or before {@link #nowMillis} are
     * left out. The estimate the service publishes assumes no arrivals: this is for a diagnosis or
     * a what-if that knows them (the simulator gives the trace's own). They get no estimate of their
     * own; their runs end after the model's expected run.
     *
     * @throws IllegalStateException once the run ran
     */
    public ForwardRun arrivals(List<JobRequest> jobs) {
        if (ran) {
            throw new IllegalStateException("arrivals are given before the run");
        }
        ArrayList<JobRequest> sorted = new ArrayList<>();
        for (JobRequest r : jobs) {
            if (r.submitTimeMillis() > now) {
                sorted.add(r);
            }
        }
        sorted.sort(java.util.Comparator.comparingLong(JobRequest::submitTimeMillis));
        arrivals = sorted;
        return this;
    }

    /** Passes the run took (0 before it ran, and when nothing waited). */
    public int passes() {
        return passes;
    }

    private record End(long atMillis, String jobId, String cluster, long placedAt, StartEstimate.Basis basis)
            implements Comparable<End> {
        @Override
        public int compareTo(End o) {
            int c = Long.compare(atMillis, o.atMillis);
            return c != 0 ? c : jobId.compareTo(o.jobId);
        }
    }

    /**
     * Runs the copy forward (see {@link StartEstimator} for how it steps) and returns an estimate for
     * every job that waited, keyed by job id, in queue order per cluster.
     *
     * @throws IllegalStateException when run a second time
     */
    public Map<String, StartEstimate> run() {
        if (ran) {
            throw new IllegalStateException("a forward run runs once: prepare another");
        }
        ran = true;
        LinkedHashMap<String, StartEstimate> out = new LinkedHashMap<>();
        if (queue.isEmpty()) {
            return out;
        }
        HashSet<String> unplaced = new HashSet<>(queue);
        HashMap<String, StartEstimate> found = new HashMap<>();
        HashMap<String, StartEstimate.Basis> weakest = new HashMap<>();
        PriorityQueue<End> ends = new PriorityQueue<>();
        TreeSet<Long> wakes = new TreeSet<>();
        for (JobView j : sim.jobs()) {
            if (j.state() == JobState.RUNNING) {
                RunTimeModel.RunTime rt = runTimes.expectedRemaining(j.request(), now - j.placedAtMillis());
                ends.add(new End(now + rt.millis(), j.jobId(), j.cluster(), j.placedAtMillis(), rt.basis()));
                if (j.protectedUntilMillis() > now) {
                    wakes.add(j.protectedUntilMillis());
                }
            }
        }
        long horizonEnd = now + horizonMillis;
        long t = now;
        int arrived = 0;
        long stepStart = now;
        // the step's ends, by node: when the node's last GPUs of the step were freed
        HashMap<String, Long> freedAt = new HashMap<>();
        while (true) {
            List<Decision> decisions = sim.schedule(t);
            passes++;
            for (Decision d : decisions) {
                if (d instanceof Decision.Place p) {
                    JobView j = sim.job(p.jobId()).orElseThrow();
                    long start = startOf(p, j, stepStart, t, freedAt);
                    if (unplaced.remove(p.jobId())) {
                        found.put(p.jobId(), new StartEstimate(p.jobId(), start,
                                weakest.getOrDefault(j.cluster(), StartEstimate.Basis.DECLARED)));
                    }
                    RunTimeModel.RunTime rt = runTimes.expectedRun(j.request());
                    ends.add(new End(start + rt.millis(), j.jobId(), j.cluster(), t, rt.basis()));
                    if (p.protectedUntilMillis() > t) {
                        wakes.add(p.protectedUntilMillis());
                    }
                } else if (d instanceof Decision.Reserve r && r.dueAtMillis() > t) {
                    wakes.add(r.dueAtMillis());
                }
            }
            if (unplaced.isEmpty() || passes >= steps.maxSteps()) {
                break;
            }
            while (!ends.isEmpty() && stale(ends.peek())) {
                ends.poll();
            }
            boolean arrivalsLeft = arrived < arrivals.size();
            if (ends.isEmpty() && !arrivalsLeft) {
                break; // nothing runs: nothing frees GPUs any more, no one to displace
            }
            long ahead = t - now;
            long next = Math.min(ends.isEmpty() ? Long.MAX_VALUE : ends.peek().atMillis(),
                    t + Math.max(steps.tickMillis(), (long) (ahead * steps.stepFraction() * 5)));
            if (arrivalsLeft) {
                next = Math.min(next, Math.max(t + 1, arrivals.get(arrived).submitTimeMillis()));
            }
            Long wake = wakes.higher(t);
            if (wake != null) {
                next = Math.min(next, wake);
            }
            if (next > horizonEnd) {
                break;
            }
            long stepEnd = Math.min(horizonEnd, // (a start past the horizon is BEYOND_HORIZON)
                    next + Math.max(steps.minStepMillis(), (long) ((next - now) * steps.stepFraction())));
            long last = next;
            ArrayList<Scheduler.JobEnd> ended = new ArrayList<>();
            freedAt.clear();
            stepStart = Math.max(t, next);
            while (!ends.isEmpty() && ends.peek().atMillis() <= stepEnd) {
                End e = ends.poll();
                JobView ending = runOf(e);
                if (ending == null) {
                    continue;
                }
                for (dev.allot.core.ReplicaPlacement r : ending.placement()) {
                    freedAt.merge(r.nodeId(), e.atMillis(), Math::max);
                }
                ended.add(new Scheduler.JobEnd(e.atMillis(), e.jobId()));
                weakest.merge(e.cluster(), e.basis(), ForwardRun::weaker);
                last = Math.max(last, e.atMillis());
            }
            sim.jobsFinished(ended);
            while (arrived < arrivals.size() && arrivals.get(arrived).submitTimeMillis() <= stepEnd) {
                JobRequest a = arrivals.get(arrived++);
                sim.submit(a.submitTimeMillis(), a);
                last = Math.max(last, a.submitTimeMillis());
            }
            wakes.headSet(last, true).clear();
            t = Math.max(t, last);
        }
        for (String jobId : queue) {
            StartEstimate e = found.get(jobId);
            out.put(jobId, e != null ? e : new StartEstimate(jobId, horizonEnd, StartEstimate.Basis.BEYOND_HORIZON));
        }
        return out;
    }

    /**
     * When a job the pass at {@code t} placed starts: the pass stands for a step whose ends it took
     * together, so the job is taken to start when its nodes' GPUs were freed in the step (the
     * latest end there), or at the step's first moment if none ended there, never before its
     * submission nor after the pass. Its run is counted from then: a start pushed to the pass would
     * push every run after it on those GPUs, and the delay would add up over the look-ahead.
     */
    private static long startOf(Decision.Place p, JobView j, long stepStart, long t, HashMap<String, Long> freedAt) {
        long start = Math.max(stepStart, j.request().submitTimeMillis());
        for (dev.allot.core.ReplicaPlacement r : p.replicas()) {
            Long f = freedAt.get(r.nodeId());
            if (f != null) {
                start = Math.max(start, f);
            }
        }
        return Math.min(start, t);
    }

    /** The end belongs to a run that is over (the copy preempted or released the job since). */
    private boolean stale(End e) {
        return runOf(e) == null;
    }

    /** The job whose run the end belongs to, or null if that run is over. */
    private JobView runOf(End e) {
        JobView j = sim.job(e.jobId()).orElse(null);
        return j == null || j.state() != JobState.RUNNING || j.placedAtMillis() != e.placedAt() ? null : j;
    }

    private static StartEstimate.Basis weaker(StartEstimate.Basis a, StartEstimate.Basis b) {
        return a.ordinal() >= b.ordinal() ? a : b;
    }
}
