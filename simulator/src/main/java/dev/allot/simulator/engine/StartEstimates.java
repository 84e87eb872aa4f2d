package dev.allot.simulator.engine;

import dev.allot.core.JobRequest;
import dev.allot.core.Scheduler;
import dev.allot.core.SchedulerConfig;
import dev.allot.core.estimate.ForwardRun;
import dev.allot.core.estimate.LearnedRunTimes;
import dev.allot.core.estimate.RunTimeModel;
import dev.allot.core.estimate.StartEstimate;
import dev.allot.core.estimate.StartEstimator;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.function.IntPredicate;
import java.util.function.IntFunction;

/**
 * How accurate the expected start is, measured in a simulation run: the scheduler-service's
 * estimate ({@link StartEstimator} over the live simulated core, {@link LearnedRunTimes} fed with
 * every job that finished in the run) and a Slurm-style baseline, both compared with the start
 * the run then gives the job.
 *
 * <p>Samples: at a job's submission and then every hour while it waits for its first start. The
 * estimate is refreshed at most every {@link #REFRESH_MILLIS} of simulated time (as the service
 * refreshes on a timer) and only when some waiting job is due a sample, so a job's submission sample is
 * taken at the first refresh at or after its submission (within 5 minutes; the simulator has a
 * moment at least every tick while jobs wait). Only jobs submitted after the warm-up are sampled.
 *
 * <p>What the estimator knows: the trace's declared durations only (the traces read today declare
 * none, so the duration hints the simulator gives the core are stripped before the run-time
 * model sees a request); learned run times are what each finished run took from its placement.
 * Jobs not placed within {@link #HORIZON_MILLIS} are estimated at the horizon's end.
 *
 * <p>Baseline (Slurm's {@code squeue --start}): the same forward run without preemption, every
 * running job ending at its limit. The traces have no per-job limit; the limit is the longest
 * duration in the scenario's trace (a partition's maximum run time, as a site without per-job
 * limits would set it).
 *
 * <p>Diagnosis ({@link Oracle}, off by default): the estimator may be told what a live scheduler
 * cannot know, the simulation's exact run times and the trace's future submissions, to measure
 * how much of the error each leaves; {@link Accuracy#rows} keeps every sample for analysis.
 *
 * <p>Figures ({@link Accuracy}) over the jobs whose actual wait exceeded {@link #MIN_WAIT_MILLIS}
 * and that started within the run: the headline uses each job's submission sample only (one per
 * job); {@code hourly} the same figures over every sample, submission and hourly ones.
 */
public final class StartEstimates {
    static final long REFRESH_MILLIS = 5 * 60_000L;
    static final long RESAMPLE_MILLIS = SchedulerConfig.HOUR;
    static final long HORIZON_MILLIS = 14 * SchedulerConfig.DAY;
    static final long MIN_WAIT_MILLIS = 10 * 60_000L;
    /** The run time of a team's job until three of its runs finished. */
    static final long DEFAULT_RUN_MILLIS = SchedulerConfig.HOUR;

    private record Due(long atMillis, int job) implements Comparable<Due> {
        @Override
        public int compareTo(Due o) {
            int c = Long.compare(atMillis, o.atMillis);
            return c != 0 ? c : Integer.compare(job, o.job);
        }
    }

    private record Sample(int job, long atMillis, long estimate, long baseline, boolean atSubmission,
            StartEstimate.Basis basis) {
    }

    /** What the estimator is told beyond what a live scheduler knows (a diagnosis of the error only). */
    public enum Oracle {
        NONE, RUN_TIMES, ARRIVALS, BOTH;

        boolean runTimes() {
            return this == RUN_TIMES || this == BOTH;
        }

        boolean arrivals() {
            return this == ARRIVALS || this == BOTH;
        }
    }

    /** The simulation's exact figures, for an {@link Oracle}. */
    interface Truth {
        /** A running job's time left at {@code now}; a waiting job's next run. */
        long remainingMillis(String jobId, long now);

        /** The jobs the trace submits in ({@code from}, {@code to}], as the core gets them; {@code from} never goes back. */
        List<JobRequest> submitted(long from, long to);
    }

    private final LearnedRunTimes learned;
    private final Oracle oracle;
    private final Truth truth;
    private final StartEstimator estimator;
    private final StartEstimator baseline;
    private final PriorityQueue<Due> due = new PriorityQueue<>();
    private final long[] submittedAt;
    private final JobRequest[] requests;
    private final boolean[] sampledAtSubmission;
    private final ArrayList<Sample> samples = new ArrayList<>();
    private long lastRefresh = Long.MIN_VALUE;
    private int refreshes;
    private long nanos;

    /**
     * @param limitMillis the baseline's run time of every job
     * @param steps how the estimator's forward run steps (the baseline's keeps the defaults)
     * @param truth the simulation's exact figures, read only for the parts {@code oracle} names
     * @param statistic what stands for a learned key's next run (the service's default: the mean)
     */
    StartEstimates(int jobs, long limitMillis, StartEstimator.Steps steps, Oracle oracle, Truth truth,
            LearnedRunTimes.Statistic statistic) {
        this.learned = new LearnedRunTimes(DEFAULT_RUN_MILLIS, statistic);
        this.oracle = oracle;
        this.truth = truth;
        RunTimeModel declaredOnly = new RunTimeModel() {
            @Override
            public RunTime expectedRun(JobRequest request) {
                return learned.expectedRun(request.withExpectedDuration(-1));
            }

            @Override
            public RunTime expectedRemaining(JobRequest request, long ranMillis) {
                return learned.expectedRemaining(request.withExpectedDuration(-1), ranMillis);
            }
        };
        RunTimeModel exact = new RunTimeModel() {
            @Override
            public RunTime expectedRun(JobRequest request) {
                return new RunTime(truth.remainingMillis(request.jobId(), lastRefresh), StartEstimate.Basis.DECLARED);
            }

            @Override
            public RunTime expectedRemaining(JobRequest request, long ranMillis) {
                return expectedRun(request);
            }
        };
        this.estimator = new StartEstimator(oracle.runTimes() ? exact : declaredOnly, HORIZON_MILLIS, steps, true);
        RunTimeModel limit = r -> new RunTimeModel.RunTime(limitMillis, StartEstimate.Basis.DECLARED);
        this.baseline = new StartEstimator(limit, HORIZON_MILLIS, StartEstimator.Steps.defaults(), false);
        this.submittedAt = new long[jobs];
        this.sampledAtSubmission = new boolean[jobs];
        this.requests = new JobRequest[jobs];
        Arrays.fill(submittedAt, -1);
    }

    /** The job was submitted (after the warm-up): it is due its first sample. */
    void submitted(int job, JobRequest request, long atMillis) {
        submittedAt[job] = atMillis;
        requests[job] = request;
        due.add(new Due(atMillis, job));
    }

    /** A run finished (not preempted) after {@code ranMillis} from its placement. */
    void finished(JobRequest request, long ranMillis) {
        learned.observe(request.withExpectedDuration(-1), ranMillis);
    }

    /**
     * After a pass: samples every job due one, if a refresh is allowed now.
     *
     * @param waitingUnstarted whether a job still waits for its first start
     */
    void afterPass(Scheduler core, long now, IntPredicate waitingUnstarted, IntFunction<String> idOf) {
        while (!due.isEmpty() && !waitingUnstarted.test(due.peek().job())) {
            due.poll();
        }
        if (due.isEmpty() || due.peek().atMillis() > now
                || (lastRefresh != Long.MIN_VALUE && now - lastRefresh < REFRESH_MILLIS)) {
            return;
        }
        long t0 = System.nanoTime();
        lastRefresh = now;
        refreshes++;
        ForwardRun run = estimator.prepare(core);
        if (oracle.arrivals()) {
            run.arrivals(truth.submitted(now, now + HORIZON_MILLIS));
        }
        Map<String, StartEstimate> ours = run.run();
        Map<String, StartEstimate> theirs = baseline.estimate(core);
        while (!due.isEmpty() && due.peek().atMillis() <= now) {
            Due d = due.poll();
            if (!waitingUnstarted.test(d.job())) {
                continue;
            }
            StartEstimate e = ours.get(idOf.apply(d.job()));
            StartEstimate b = theirs.get(idOf.apply(d.job()));
            if (e != null && b != null) {
                boolean first = !sampledAtSubmission[d.job()];
                sampledAtSubmission[d.job()] = true;
                samples.add(new Sample(d.job(), now, e.expectedStartMillis(), b.expectedStartMillis(), first, e.basis()));
            }
            long next = submittedAt[d.job()] + RESAMPLE_MILLIS;
            while (next <= now) {
                next += RESAMPLE_MILLIS;
            }
            due.add(new Due(next, d.job()));
        }
        nanos += System.nanoTime() - t0;
    }

    /**
     * The figures of the run, or null when nothing was sampled.
     *
     * @param firstPlaced each job's first placement in the run (ms), -1 if never
     */
    Accuracy accuracy(long[] firstPlaced) {
        ArrayList<Row> rows = new ArrayList<>(samples.size());
        for (Sample s : samples) {
            JobRequest r = requests[s.job()];
            rows.add(new Row(r.jobId(), r.account(), r.replicas(), r.gpusPerReplica(), r.minRuntimeMillis() == 0,
                    submittedAt[s.job()], s.atMillis(), s.atSubmission(), s.estimate(), s.basis(), s.baseline(),
                    firstPlaced[s.job()]));
        }
        return new Accuracy(figures(rows, true), figures(rows, false), refreshes, nanos / 1e9, oracle, rows);
    }

    private static Figures figures(List<Row> samples, boolean submissionOnly) {
        ArrayList<double[]> rows = new ArrayList<>();
        for (Row s : samples) {
            if (submissionOnly && !s.atSubmission() || !s.counted()) {
                continue;
            }
            long start = s.startMillis();
            double err = Math.abs(s.estimateMillis() - start) / 1000.0;
            double baseErr = Math.abs(s.baselineMillis() - start) / 1000.0;
            double actualWait = (start - s.sampledMillis()) / 1000.0;
            double estWait = (s.estimateMillis() - s.sampledMillis()) / 1000.0;
            double baseWait = (s.baselineMillis() - s.sampledMillis()) / 1000.0;
            rows.add(new double[] {err, baseErr, Math.abs(actualWait - estWait) <= 0.25 * estWait ? 1 : 0,
                    Math.abs(actualWait - baseWait) <= 0.25 * baseWait ? 1 : 0,
                    (start - s.submittedMillis()) / 1000.0, actualWait > 0 ? err / actualWait : 0,
                    (s.estimateMillis() - start) / 1000.0});
        }
        int n = rows.size();
        double[][] cols = new double[7][n];
        for (int i = 0; i < n; i++) {
            for (int c = 0; c < 7; c++) {
                cols[c][i] = rows.get(i)[c];
            }
        }
        return new Figures(n, quantile(cols[0], 0.5), quantile(cols[0], 0.9), mean(cols[2]), quantile(cols[1], 0.5),
                quantile(cols[1], 0.9), mean(cols[3]), quantile(cols[4], 0.5), quantile(cols[5], 0.5), quantile(cols[6], 0.5));
    }

    /** Nearest rank; NaN for no values. */
    static double quantile(double[] v, double q) {
        if (v.length == 0) {
            return Double.NaN;
        }
        double[] s = v.clone();
        Arrays.sort(s);
        int rank = (int) Math.ceil(q * s.length);
        return s[Math.max(0, Math.min(s.length - 1, rank - 1))];
    }

    private static double mean(double[] v) {
        if (v.length == 0) {
            return Double.NaN;
        }
        double sum = 0;
        for (double x : v) {
            sum += x;
        }
        return sum / v.length;
    }

    /**
     * One set of figures.
     *
     * @param jobs samples counted (one per job for the submission figures)
     * @param withinQuarterShare share whose actual wait (from the sample) is within 25 % of the estimated wait
     * @param medianWaitSeconds median actual wait from submission of the jobs counted
     * @param medianRelativeError median of absolute error / actual wait from the sample
     * @param medianSignedErrorSeconds median of estimated minus actual start (negative: estimates too early)
     */
    public record Figures(int jobs, double medianAbsErrorSeconds, double p90AbsErrorSeconds, double withinQuarterShare,
            double baselineMedianAbsErrorSeconds, double baselineP90AbsErrorSeconds,
            double baselineWithinQuarterShare, double medianWaitSeconds, double medianRelativeError,
            double medianSignedErrorSeconds) {
    }

    /**
     * One sample: the job, when it was sampled, the estimate and its basis, the baseline's, and the
     * job's first start in the run (-1 if it never started). Times in ms of simulated time.
     */
    public record Row(String jobId, String account, int replicas, int gpusPerReplica, boolean unallocated,
            long submittedMillis, long sampledMillis, boolean atSubmission, long estimateMillis,
            StartEstimate.Basis basis, long baselineMillis, long startMillis) {
        /** Whether the figures count it: the job started, more than {@link #MIN_WAIT_MILLIS} after its submission. */
        public boolean counted() {
            return startMillis >= 0 && startMillis - submittedMillis > MIN_WAIT_MILLIS;
        }
    }

    /** Submission samples, every sample, what it cost, what the estimator was told, and every sample. */
    public record Accuracy(Figures atSubmission, Figures hourly, int refreshes, double wallSeconds, Oracle oracle,
            List<Row> rows) {
        public Accuracy {
            rows = List.copyOf(rows);
        }

        /** The submission samples the headline figures count: the job started more than 10 minutes after it was submitted. */
        public List<Row> measured() {
            List<Row> out = new ArrayList<>();
            for (Row r : rows) {
                if (r.atSubmission() && r.counted()) {
                    out.add(r);
                }
            }
            return out;
        }

        /** Every sample as CSV (a header line, times in seconds of simulated time). */
        public String rowsCsv() {
            StringBuilder b = new StringBuilder("job,account,replicas,gpus_per_replica,unallocated,submitted_s,sampled_s,"
                    + "at_submission,estimate_s,basis,baseline_s,first_start_s,oracle\n");
            for (Row r : rows) {
                b.append(r.jobId()).append(',').append(r.account()).append(',').append(r.replicas()).append(',')
                        .append(r.gpusPerReplica()).append(',').append(r.unallocated()).append(',')
                        .append(r.submittedMillis() / 1000).append(',').append(r.sampledMillis() / 1000).append(',')
                        .append(r.atSubmission()).append(',').append(r.estimateMillis() / 1000).append(',')
                        .append(r.basis()).append(',').append(r.baselineMillis() / 1000).append(',')
                        .append(r.startMillis() < 0 ? -1 : r.startMillis() / 1000).append(',').append(oracle)
                        .append('\n');
            }
            return b.toString();
        }
    }
}
