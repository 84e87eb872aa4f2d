package dev.allot.core.estimate;

import dev.allot.core.JobRequest;
import java.util.ArrayDeque;
import java.util.HashMap;

/**
 * Run times: the submission's expected duration if declared, else what the team's finished jobs
 * of the same shape ran, else what the team's finished jobs of any shape ran, else a default.
 * Fed with every job that finished (not preempted).
 *
 * <p>Learned figures: the mean (or, with {@link Statistic#MEDIAN}, the lower median) of the last
 * {@value #KEPT} runs observed per (account, shape = replicas x GPUs per replica), used once it
 * holds at least {@value #MIN_RUNS} runs; otherwise the same over the account's last {@value #KEPT}
 * runs of any shape, with the same minimum; otherwise the default given to the constructor
 * ({@link StartEstimate.Basis#DEFAULT}). The mean is the default: a queue waits for the sum of many
 * ends, which the median of heavy-tailed run times underestimates.
 *
 * <p>For a job already running, {@link #expectedRemaining} is conditional on what it ran: the
 * statistic of the learned runs longer than its run so far, minus its run so far (run times are
 * heavy-tailed: a job past the typical run is likely a long one). When no learned run is that long,
 * or the figure is the default, it is expected to run as long again as it ran so far, at least
 * the default's remainder. A declared duration is taken as is: what is left of it, or 0 once
 * passed.
 *
 * <p>Thread-safe (the service observes from its consumer and estimates on a timer); a forward run
 * on another thread takes a {@link #snapshot}, which later runs do not change.
 */
public final class LearnedRunTimes implements RunTimeModel {

    /** Runs kept per key (the newest). */
    public static final int KEPT = 64;
    /** Runs a key needs before its figure is used. */
    public static final int MIN_RUNS = 3;

    /** Which figure of a key's runs stands for its next run. */
    public enum Statistic {
        /** the typical single run: right for one job, too short for the sum of many (run times are heavy-tailed) */
        MEDIAN,
        /** the mean: what many ends in a row add up to, so what a queue behind them waits for */
        MEAN
    }

    private final long defaultMillis;
    private final Statistic statistic;
    private final HashMap<String, Runs> byShape = new HashMap<>();
    private final HashMap<String, Runs> byAccount = new HashMap<>();

    /** @param defaultMillis the run time of a job whose team has no {@value #MIN_RUNS} finished runs yet */
    public LearnedRunTimes(long defaultMillis) {
        this(defaultMillis, Statistic.MEAN);
    }

    public LearnedRunTimes(long defaultMillis, Statistic statistic) {
        this.statistic = statistic;
        if (defaultMillis <= 0) {
            throw new IllegalArgumentException("the default run time must be positive: " + defaultMillis);
        }
        this.defaultMillis = defaultMillis;
    }

    public long defaultMillis() {
        return defaultMillis;
    }

    /** A job of this shape and account ran {@code ranMillis} to completion. */
    public synchronized void observe(JobRequest request, long ranMillis) {
        if (ranMillis < 0) {
            return;
        }
        byShape.computeIfAbsent(shapeKey(request), k -> new Runs(statistic)).add(ranMillis);
        byAccount.computeIfAbsent(request.account(), k -> new Runs(statistic)).add(ranMillis);
    }

    /** A copy with the runs observed so far, that no later {@link #observe} changes. */
    @Override
    public synchronized LearnedRunTimes snapshot() {
        LearnedRunTimes copy = new LearnedRunTimes(defaultMillis, statistic);
        byShape.forEach((key, runs) -> copy.byShape.put(key, runs.copy()));
        byAccount.forEach((key, runs) -> copy.byAccount.put(key, runs.copy()));
        return copy;
    }

    @Override
    public synchronized RunTime expectedRun(JobRequest request) {
        if (request.expectedDurationMillis() > 0) {
            return new RunTime(request.expectedDurationMillis(), StartEstimate.Basis.DECLARED);
        }
        Runs r = learned(request);
        return r == null ? new RunTime(defaultMillis, StartEstimate.Basis.DEFAULT)
                : new RunTime(r.statisticAbove(-1), StartEstimate.Basis.LEARNED);
    }

    @Override
    public synchronized RunTime expectedRemaining(JobRequest request, long ranMillis) {
        long ran = Math.max(0, ranMillis);
        if (request.expectedDurationMillis() > 0) {
            return new RunTime(Math.max(0, request.expectedDurationMillis() - ran), StartEstimate.Basis.DECLARED);
        }
        Runs r = learned(request);
        if (r != null) {
            long longer = r.statisticAbove(ran);
            if (longer >= 0) {
                return new RunTime(longer - ran, StartEstimate.Basis.LEARNED);
            }
            return new RunTime(Math.max(ran, r.statisticAbove(-1) - ran), StartEstimate.Basis.LEARNED);
        }
        return new RunTime(Math.max(ran, defaultMillis - ran), StartEstimate.Basis.DEFAULT);
    }

    /** Runs observed for the key (account, shape) or the account, or null when neither has enough. */
    private Runs learned(JobRequest request) {
        Runs r = byShape.get(shapeKey(request));
        if (r != null && r.size() >= MIN_RUNS) {
            return r;
        }
        r = byAccount.get(request.account());
        return r != null && r.size() >= MIN_RUNS ? r : null;
    }

    private static String shapeKey(JobRequest request) {
        return request.account() + '\u0000' + request.replicas() + 'x' + request.gpusPerReplica();
    }

    /** The newest {@link #KEPT} runs of one key, with a sorted copy kept until the next one comes. */
    private static final class Runs {
        private final ArrayDeque<Long> newest = new ArrayDeque<>(KEPT);
        private final Statistic statistic;
        private long[] sorted;
        /** suffix[i]: sum of sorted[i..] */
        private long[] suffix;

        Runs(Statistic statistic) {
            this.statistic = statistic;
        }

        void add(long ran) {
            if (newest.size() == KEPT) {
                newest.removeFirst();
            }
            newest.addLast(ran);
            sorted = null;
        }

        int size() {
            return newest.size();
        }

        /** The same runs; the sorted arrays are shared (never written once made, only replaced). */
        Runs copy() {
            Runs c = new Runs(statistic);
            c.newest.addAll(newest);
            c.sorted = sorted;
            c.suffix = suffix;
            return c;
        }

        /** The statistic (lower median, or mean rounded down) of the runs longer than {@code than}, or -1 if none. */
        long statisticAbove(long than) {
            if (sorted == null) {
                sorted = newest.stream().mapToLong(Long::longValue).sorted().toArray();
                suffix = new long[sorted.length + 1];
                for (int i = sorted.length - 1; i >= 0; i--) {
                    suffix[i] = suffix[i + 1] + sorted[i];
                }
            }
            int from = upperBound(sorted, than);
            int n = sorted.length - from;
            if (n == 0) {
                return -1;
            }
            return statistic == Statistic.MEDIAN ? sorted[from + (n - 1) / 2] : suffix[from] / n;
        }

        /** First index whose value is greater than {@code v}. */
        private static int upperBound(long[] a, long v) {
            int lo = 0;
            int hi = a.length;
            while (lo < hi) {
                int mid = (lo + hi) >>> 1;
                if (a[mid] <= v) {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            return lo;
        }
    }
}
