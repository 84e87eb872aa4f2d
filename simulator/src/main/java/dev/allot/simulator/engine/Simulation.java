package dev.allot.simulator.engine;

import dev.allot.core.ChargeMode;
import dev.allot.core.Decision;
import dev.allot.core.JobRequest;
import dev.allot.core.NodeSpec;
import dev.allot.core.ReplicaPlacement;
import dev.allot.core.Scheduler;
import dev.allot.core.Goodput;
import dev.allot.core.SchedulerConfig;
import dev.allot.core.estimate.LearnedRunTimes;
import dev.allot.core.estimate.StartEstimator;
import dev.allot.core.metrics.ClusterMetrics;
import dev.allot.core.metrics.JobClass;
import dev.allot.core.ordering.DebugLane;
import dev.allot.core.policy.SchedulingPolicy;
import dev.allot.simulator.policy.NonPreempting;
import dev.allot.simulator.policy.TimeIndependent;
import dev.allot.simulator.scenario.BudgetFile;
import dev.allot.simulator.scenario.Scenario;
import dev.allot.simulator.scenario.SimJob;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.TreeSet;
import java.util.function.DoubleConsumer;

/**
 * Drives the very same {@link Scheduler} the scheduler-service uses, on a virtual clock that
 * jumps to the next moment something can happen: the next arrival, the next job end, the next
 * end of a protected window (only while jobs wait), the next reservation due, and a coarse tick
 * (usage and ratios move with time). Event times are rounded up to {@code quantumSeconds}.
 *
 * <p>At each moment, in this order: jobs that ended are reported finished, arrivals are
 * submitted, one pass runs ({@link Scheduler#schedule}) and its decisions are carried out on the
 * simulated cluster. A placed job runs for its remaining work; a preempted resumable job keeps
 * the work up to its last checkpoint (every {@code checkpointSeconds} of its run) and loses the
 * rest; a non-resumable one loses its whole run and starts over. Checkpoints are reported to the
 * core ({@link Scheduler#jobCheckpointed}) as the node agents would, so its victim choice (least
 * work since the last checkpoint) sees the same facts the simulator charges losses on.
 *
 * <p>A job the scenario says checkpoints on notice ({@link Scenario#checkpointsOnNotice}) writes a
 * checkpoint within the grace period when it is preempted or released for a drain, so it keeps all
 * its work up to the stop and loses nothing. A requeue (its node was lost) gives no notice.
 */
public final class Simulation {
    public static final String CLUSTER = "sim";

    /**
     * @param quantumSeconds event times are rounded up to a multiple of this (1 = exact seconds)
     * @param tickSeconds the coarse tick while jobs wait
     * @param checkpointSeconds resumable jobs checkpoint this often while running
     * @param durationHints pass each job's remaining run time to the core as expected duration
     *     (used only to let work backfill nodes reserved for a large job)
     * @param debugLane the core's debug lane bounds (used by policies that have a lane)
     * @param goodput the core's goodput rules
     * @param maxReservations blocked top-ranked jobs with reserved nodes at a time
     */
    public record Options(long quantumSeconds, long tickSeconds, long checkpointSeconds, boolean durationHints,
            DebugLane debugLane, Goodput goodput, int maxReservations) {
        public Options(long quantumSeconds, long tickSeconds, long checkpointSeconds, boolean durationHints) {
            this(quantumSeconds, tickSeconds, checkpointSeconds, durationHints, DebugLane.defaults());
        }

        public Options(long quantumSeconds, long tickSeconds, long checkpointSeconds, boolean durationHints,
                DebugLane debugLane) {
            this(quantumSeconds, tickSeconds, checkpointSeconds, durationHints, debugLane, Goodput.defaults(),
                    SchedulerConfig.defaults().maxReservationsPerCluster());
        }

        public static Options defaults() {
            return new Options(1, 300, 1800, true);
        }
    }

    /** Finished jobs are dropped from the core's memory every this many (million-job runs). */
    private static final int FORGET_EVERY = 20_000;

    private static final byte PENDING = 0;
    private static final byte WAITING = 1;
    private static final byte RUNNING = 2;
    private static final byte FINISHED = 3;
    private static final byte REJECTED = 4;

    private final Scenario scenario;
    private final SchedulingPolicy policy;
    private final String variant;
    private final Options options;
    private final EventSink sink;
    private final DoubleConsumer progress;
    private boolean startEstimates;
    private StartEstimator.Steps estimateSteps = StartEstimator.Steps.defaults();
    private StartEstimates.Oracle oracle = StartEstimates.Oracle.NONE;
    private LearnedRunTimes.Statistic runTimeStatistic = LearnedRunTimes.Statistic.MEAN;

    public Simulation(Scenario scenario, SchedulingPolicy policy, String variant, Options options, EventSink sink,
            DoubleConsumer progress) {
        this.scenario = scenario;
        this.policy = policy;
        this.variant = variant;
        this.options = options;
        this.sink = sink == null ? EventSink.NONE : sink;
        this.progress = progress == null ? f -> { } : progress;
    }

    /** Also measure the expected start's accuracy ({@link StartEstimates}); costly, off by default. */
    public Simulation estimatingStarts(boolean on) {
        this.startEstimates = on;
        return this;
    }

    /** How the measured estimates step, and what they are told beyond a live scheduler's knowledge. */
    public Simulation estimating(StartEstimator.Steps steps, StartEstimates.Oracle told,
            LearnedRunTimes.Statistic statistic) {
        this.estimateSteps = steps;
        this.oracle = told;
        this.runTimeStatistic = statistic;
        return this;
    }

    private record Timed(long atMillis, int job, int seq) implements Comparable<Timed> {
        @Override
        public int compareTo(Timed o) {
            int c = Long.compare(atMillis, o.atMillis);
            return c != 0 ? c : Integer.compare(job, o.job);
        }
    }

    /** The run's exact figures for an estimate oracle: it reads the run's arrays as they stand. */
    private StartEstimates.Truth truth(List<SimJob> jobs, Map<String, Integer> index, long[] remaining,
            long[] placedAt, byte[] state) {
        long[] submitted = new long[jobs.size()];
        for (int i = 0; i < jobs.size(); i++) {
            submitted[i] = jobs.get(i).submitSeconds() * 1000; // in trace order, so sorted
        }
        return new StartEstimates.Truth() {
            /** The first job submitted after the last {@code from} asked (refreshes only go forward). */
            private int cursor;

            @Override
            public long remainingMillis(String jobId, long now) {
                int j = index.get(jobId);
                return state[j] == RUNNING ? Math.max(0, placedAt[j] + remaining[j] - now) : remaining[j];
            }

            @Override
            public List<JobRequest> submitted(long from, long to) {
                List<JobRequest> out = new ArrayList<>();
                while (cursor < submitted.length && submitted[cursor] <= from) {
                    cursor++;
                }
                for (int i = cursor; i < submitted.length && submitted[i] <= to; i++) {
                    out.add(request(jobs.get(i), options.durationHints() ? remaining[i] : -1)); // as the run submits it
                }
                return out;
            }
        };
    }

    /** The core's request for a trace job, with the expected duration given (or -1). */
    private static JobRequest request(SimJob job, long expectedMillis) {
        return new JobRequest(job.jobId(), job.team(), CLUSTER, job.replicas(), job.gpusPerReplica(),
                job.minRuntimeSeconds() * 1000, job.resumable(), job.debug() ? 1 : 0, job.submitSeconds() * 1000,
                expectedMillis);
    }

    public RunResult run() {
        long wallStart = System.nanoTime();
        List<SimJob> jobs = scenario.jobs();
        int n = jobs.size();
        long warmMs = scenario.warmupSeconds() * 1000;
        long periodMs = scenario.spanSeconds() * 1000;
        final double w = scenario.warmupSeconds();
        long quantum = Math.max(1, options.quantumSeconds()) * 1000;
        long tick = Math.max(1, options.tickSeconds()) * 1000;
        long ckpt = Math.max(1, options.checkpointSeconds()) * 1000;
        int capacity = scenario.clusterGpus();
        boolean preempts = !(policy instanceof NonPreempting);
        boolean ticks = !(policy instanceof TimeIndependent);
        boolean[] onNotice = new boolean[n];
        for (int i = 0; i < n; i++) {
            onNotice[i] = scenario.checkpointsOnNotice(jobs.get(i));
        }

        SchedulerConfig config = SchedulerConfig.defaults()
                .withWindow(scenario.lookbackSeconds() * 1000, SchedulerConfig.HOUR)
                .withMaxMinRuntime(scenario.maxMinRuntimeSeconds() * 1000)
                .withDebugLane(options.debugLane())
                .withGoodput(options.goodput())
                .withMaxReservationsPerCluster(options.maxReservations());
        Scheduler core = new Scheduler(config, policy);
        for (BudgetFile.Entry e : scenario.budgets().entries()) {
            core.defineBudget(0, e.account(), e.parent(), e.share());
        }
        for (int i = 0; i < scenario.nodes(); i++) {
            core.registerNode(0, new NodeSpec(CLUSTER, String.format("n%04d", i + 1), scenario.gpusPerNode()));
        }
        long longestRun = 0;
        for (SimJob job : jobs) {
            longestRun = Math.max(longestRun, job.durationSeconds() * 1000);
        }
        ClusterMetrics metrics = new ClusterMetrics(scenario.periodSeconds(), capacity, scenario.fractions());

        Map<String, Integer> index = new HashMap<>(n * 2);
        for (int i = 0; i < n; i++) {
            index.put(jobs.get(i).jobId(), i);
        }
        // (the arrays the truth reads are filled below, before the first refresh)
        long[] remaining = new long[n];
        long[] placedAt = new long[n];
        byte[] state = new byte[n];
        StartEstimates estimates = startEstimates
                ? new StartEstimates(n, longestRun, estimateSteps, oracle, truth(jobs, index, remaining, placedAt, state),
                        runTimeStatistic)
                : null;
        long[] firstPlaced = new long[n];
        int[] seq = new int[n];
        // a large job's first reservation (ms), and whether its head-of-line time has been counted
        long[] firstReserved = new long[n];
        boolean[] headOfLineDone = new boolean[n];
        Arrays.fill(firstReserved, -1);
        for (int i = 0; i < n; i++) {
            remaining[i] = jobs.get(i).durationSeconds() * 1000;
            placedAt[i] = -1;
            firstPlaced[i] = -1;
        }
        PriorityQueue<Timed> ends = new PriorityQueue<>();
        PriorityQueue<Timed> protections = new PriorityQueue<>();
        PriorityQueue<Timed> checkpoints = new PriorityQueue<>();
        TreeSet<Long> reservationsDue = new TreeSet<>();
        List<ClusterMetrics.Preemption> preemptionLog = new ArrayList<>();
        int preemptUnallocated = 0;
        double lostUnallocated = 0;

        int nextArrival = 0;
        int waiting = 0;
        int used = 0;
        int finished = 0;
        int rejected = 0;
        long passes = 0;
        int forgotten = 0;
        long now = 0;
        long nextTick = tick;
        double lastProgress = -1;

        while (true) {
            while (!ends.isEmpty() && stale(ends.peek(), state, seq)) {
                ends.poll();
            }
            while (!protections.isEmpty()
                    && (protections.peek().atMillis() <= now || stale(protections.peek(), state, seq))) {
                protections.poll();
            }
            while (!reservationsDue.isEmpty() && reservationsDue.first() <= now) {
                reservationsDue.pollFirst();
            }
            long t = Long.MAX_VALUE;
            if (nextArrival < n) {
                t = jobs.get(nextArrival).submitSeconds() * 1000;
            }
            if (!ends.isEmpty()) {
                t = Math.min(t, ends.peek().atMillis());
            }
            if (waiting > 0) {
                if (!protections.isEmpty()) {
                    t = Math.min(t, protections.peek().atMillis());
                }
                if (!reservationsDue.isEmpty()) {
                    t = Math.min(t, reservationsDue.first());
                }
                if (ticks) {
                    t = Math.min(t, nextTick);
                }
            }
            if (t == Long.MAX_VALUE) {
                break;
            }
            t = Math.max(now, ceil(t, quantum));
            if (t >= periodMs) {
                break;
            }
            if (waiting > 0 && t > now) {
                metrics.idleWhileWaiting(now / 1000.0 - w, t / 1000.0 - w, capacity - used);
            }
            now = t;
            while (nextTick <= now) {
                nextTick += tick;
            }
            // 0. checkpoints written since the last moment (facts the node agents report), in time order
            while (!checkpoints.isEmpty() && checkpoints.peek().atMillis() <= now) {
                Timed c = checkpoints.poll();
                if (stale(c, state, seq) || c.atMillis() >= placedAt[c.job()] + remaining[c.job()]) {
                    continue;
                }
                core.jobCheckpointed(c.atMillis(), jobs.get(c.job()).jobId());
                checkpoints.add(new Timed(c.atMillis() + ckpt, c.job(), c.seq()));
            }
            // 1. jobs that ended
            while (!ends.isEmpty() && ends.peek().atMillis() <= now) {
                Timed e = ends.poll();
                if (stale(e, state, seq)) {
                    continue;
                }
                int j = e.job();
                SimJob job = jobs.get(j);
                if (estimates != null) {
                    estimates.finished(core.job(job.jobId()).orElseThrow().request(), now - placedAt[j]);
                }
                core.jobFinished(now, job.jobId());
                metrics.held(job.team(), placedAt[j] / 1000.0 - w, now / 1000.0 - w, job.gpus(), job.allocated());
                metrics.demanded(job.team(), job.submitSeconds() - w, now / 1000.0 - w, job.gpus(), job.allocated());
                used -= job.gpus();
                state[j] = FINISHED;
                seq[j]++;
                finished++;
                sink.event(now / 1000.0, job.jobId(), job.team(), "complete", job.gpus(), "");
            }
            if (finished - forgotten >= FORGET_EVERY) {
                core.forgetFinished();
                forgotten = finished;
            }
            // 2. arrivals
            while (nextArrival < n && jobs.get(nextArrival).submitSeconds() * 1000 <= now) {
                int j = nextArrival++;
                SimJob job = jobs.get(j);
                long submitMs = job.submitSeconds() * 1000;
                JobRequest req = request(job, options.durationHints() ? remaining[j] : -1);
                core.submit(now, req);
                if (estimates != null && submitMs >= warmMs) {
                    estimates.submitted(j, req, submitMs);
                }
                state[j] = WAITING;
                waiting++;
                sink.event(job.submitSeconds(), job.jobId(), job.team(), "submit", job.gpus(), "");
            }
            // 3. one pass
            List<Decision> decisions = core.schedule(now);
            passes++;
            for (Decision d : decisions) {
                switch (d) {
                    case Decision.Place p -> {
                        int j = index.get(p.jobId());
                        SimJob job = jobs.get(j);
                        if (state[j] != WAITING) {
                            throw new IllegalStateException(policy.name() + ": placed " + p.jobId() + " in state "
                                    + state[j]);
                        }
                        state[j] = RUNNING;
                        waiting--;
                        used += job.gpus();
                        placedAt[j] = now;
                        if (firstPlaced[j] < 0) {
                            firstPlaced[j] = now;
                            if (job.submitSeconds() * 1000 >= warmMs) {
                                metrics.waited(job.jobClass(), (now - job.submitSeconds() * 1000) / 1000.0, job.allocated());
                            }
                        }
                        if (firstReserved[j] >= 0 && !headOfLineDone[j]) {
                            headOfLineDone[j] = true;
                            metrics.headOfLine((now - firstReserved[j]) / 1000.0, job.allocated());
                        }
                        ends.add(new Timed(now + remaining[j], j, seq[j]));
                        if (job.resumable()) {
                            checkpoints.add(new Timed(now + ckpt, j, seq[j]));
                        }
                        if (preempts && p.chargeMode() == ChargeMode.ALLOCATED && p.protectedUntilMillis() > now) {
                            protections.add(new Timed(p.protectedUntilMillis(), j, seq[j]));
                        }
                        sink.event(now / 1000.0, job.jobId(), job.team(), "place", job.gpus(), nodes(p.replicas()));
                    }
                    case Decision.Preempt p -> {
                        int j = index.get(p.jobId());
                        SimJob victim = jobs.get(j);
                        long ranFrom = placedAt[j];
                        long remainingBefore = remaining[j];
                        double lost = stop(j, victim, now, ckpt, onNotice[j], state, remaining, placedAt, seq, metrics,
                                w);
                        used -= victim.gpus();
                        waiting++;
                        if (now >= warmMs) {
                            // the lost work is what ran after the kept part (remaining shrank by what was kept)
                            long lostFrom = ranFrom + (remainingBefore - remaining[j]);
                            ClusterMetrics.Preemption pr = new ClusterMetrics.Preemption(victim.team(),
                                    p.preemptorAccount(), lostFrom / 1000.0 - w, now / 1000.0 - w, victim.gpus(), lost,
                                    victim.allocated(), victim.resumable());
                            metrics.preempted(pr);
                            preemptionLog.add(pr);
                            if (!jobs.get(j).allocated()) {
                                preemptUnallocated++;
                                lostUnallocated += lost;
                            }
                        }
                        sink.event(now / 1000.0, p.jobId(), jobs.get(j).team(), "preempt", jobs.get(j).gpus(), "");
                    }
                    case Decision.Requeue r -> {
                        int j = index.get(r.jobId());
                        stop(j, jobs.get(j), now, ckpt, false, state, remaining, placedAt, seq, metrics, w);
                        used -= jobs.get(j).gpus();
                        waiting++;
                        sink.event(now / 1000.0, r.jobId(), jobs.get(j).team(), "requeue", jobs.get(j).gpus(), "");
                    }
                    case Decision.ReleaseForDrain r -> {
                        int j = index.get(r.jobId());
                        stop(j, jobs.get(j), now, ckpt, onNotice[j], state, remaining, placedAt, seq, metrics, w);
                        used -= jobs.get(j).gpus();
                        waiting++;
                        sink.event(now / 1000.0, r.jobId(), jobs.get(j).team(), "requeue", jobs.get(j).gpus(), "");
                    }
                    case Decision.Reject r -> {
                        Integer j = index.get(r.jobId());
                        if (j != null && state[j] == WAITING) {
                            state[j] = REJECTED;
                            waiting--;
                            rejected++;
                            sink.event(now / 1000.0, r.jobId(), jobs.get(j).team(), "reject", jobs.get(j).gpus(), "");
                        }
                    }
                    case Decision.Reserve r -> {
                        Integer j = index.get(r.jobId());
                        if (j != null && firstReserved[j] < 0 && jobs.get(j).jobClass() == JobClass.LARGE
                                && jobs.get(j).submitSeconds() * 1000 >= warmMs) {
                            firstReserved[j] = now;
                        }
                        if (r.dueAtMillis() > now) {
                            reservationsDue.add(r.dueAtMillis());
                        }
                    }
                    case Decision.NodeDrained nd -> {
                    }
                }
            }
            if (estimates != null) {
                estimates.afterPass(core, now, j -> state[j] == WAITING && firstPlaced[j] < 0, j -> jobs.get(j).jobId());
            }
            if (used > capacity || used < 0) {
                throw new IllegalStateException(policy.name() + ": " + used + " GPUs in use of " + capacity);
            }
            double f = (double) now / periodMs;
            if (f - lastProgress >= 0.01) {
                lastProgress = f;
                progress.accept(f);
            }
        }
        // the period ends
        if (waiting > 0 && periodMs > now) {
            metrics.idleWhileWaiting(now / 1000.0 - w, periodMs / 1000.0 - w, capacity - used);
        }
        int runningAtEnd = 0;
        int waitingAtEnd = 0;
        // jobs whose arrival fell in the last quantum, after the last moment: submitted, never looked at
        for (int j = nextArrival; j < n; j++) {
            SimJob job = jobs.get(j);
            state[j] = WAITING;
            sink.event(job.submitSeconds(), job.jobId(), job.team(), "submit", job.gpus(), "");
        }
        for (int j = 0; j < n; j++) {
            SimJob job = jobs.get(j);
            if (state[j] == RUNNING) {
                runningAtEnd++;
                metrics.held(job.team(), placedAt[j] / 1000.0 - w, periodMs / 1000.0 - w, job.gpus(), job.allocated());
                sink.event(periodMs / 1000.0, job.jobId(), job.team(), "cutoff", job.gpus(), "");
            } else if (state[j] == WAITING) {
                waitingAtEnd++;
            }
            if (state[j] == RUNNING || state[j] == WAITING) {
                metrics.demanded(job.team(), job.submitSeconds() - w, periodMs / 1000.0 - w, job.gpus(), job.allocated());
            }
            if (state[j] == WAITING && firstPlaced[j] < 0 && job.submitSeconds() * 1000 >= warmMs) {
                metrics.waited(job.jobClass(), scenario.spanSeconds() - job.submitSeconds(), job.allocated());
            }
            if (firstReserved[j] >= 0 && !headOfLineDone[j]) {
                metrics.headOfLine((periodMs - firstReserved[j]) / 1000.0, jobs.get(j).allocated());
            }
        }
        progress.accept(1.0);
        return new RunResult(policy.name(), variant, metrics, metrics.result(), n, finished, runningAtEnd,
                waitingAtEnd, rejected, passes, preemptionLog, (System.nanoTime() - wallStart) / 1_000_000,
                preemptUnallocated, lostUnallocated / 3600.0, estimates == null ? null : estimates.accuracy(firstPlaced));
    }

    /**
     * Stops a running job: closes its held interval, keeps checkpointed work (all of it when the job
     * checkpoints on this notice). Returns lost GPU-seconds.
     */
    private static double stop(int j, SimJob job, long now, long ckpt, boolean checkpointNow, byte[] state,
            long[] remaining, long[] placedAt, int[] seq, ClusterMetrics metrics, double w) {
        if (state[j] != RUNNING) {
            throw new IllegalStateException("stopping " + job.jobId() + " which is not running");
        }
        metrics.held(job.team(), placedAt[j] / 1000.0 - w, now / 1000.0 - w, job.gpus(), job.allocated());
        long done = now - placedAt[j];
        long kept = checkpointNow ? done : job.resumable() ? (done / ckpt) * ckpt : 0;
        remaining[j] -= kept;
        state[j] = WAITING;
        seq[j]++;
        placedAt[j] = -1;
        return (done - kept) / 1000.0 * job.gpus();
    }

    private static boolean stale(Timed t, byte[] state, int[] seq) {
        return state[t.job()] != RUNNING || seq[t.job()] != t.seq();
    }

    private static long ceil(long t, long q) {
        return q <= 1 ? t : ((t + q - 1) / q) * q;
    }

    private static String nodes(List<ReplicaPlacement> replicas) {
        StringBuilder b = new StringBuilder();
        for (ReplicaPlacement r : replicas) {
            if (b.length() > 0) {
                b.append(';');
            }
            b.append(r.nodeId());
        }
        return b.toString();
    }

}
