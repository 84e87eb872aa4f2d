package dev.allot.scheduler;

import dev.allot.core.Scheduler;
import dev.allot.core.estimate.ForwardRun;
import dev.allot.core.estimate.RunTimeModel;
import dev.allot.core.estimate.StartEstimate;
import dev.allot.core.estimate.StartEstimator;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongConsumer;
import java.util.function.LongSupplier;
import org.jboss.logging.Logger;

/**
 * The expected starts the queue snapshot carries: the core's {@link StartEstimator} at most once per
 * interval, in two parts. {@link #refresh}, on the loop's thread after a step's transaction is
 * committed, takes what must be consistent with the live core, which is single-threaded: a copy of
 * it and of the run-time figures ({@link StartEstimator#prepare}, cheap next to the run). The forward
 * run, seconds of CPU on a large cluster, goes to the executor given by {@link #runOn} (the loop's
 * estimates thread), so no decision waits for it; its figures are published when it ends and a later
 * snapshot carries them. At most one refresh is in flight. Between refreshes the last figures are
 * published; a job that arrived since the copy has none yet.
 *
 * <p>Until {@link #runOn} the forward run runs on the caller's thread (a projection outside the loop:
 * tests, tools).
 */
final class StartEstimates {

    private static final Logger LOG = Logger.getLogger(StartEstimates.class);

    /** One refresh's answer: the estimates of the jobs that waited at {@code computedAtMillis}. */
    record Latest(long computedAtMillis, long horizonMillis, Map<String, StartEstimate> byJob) {
    }

    private final StartEstimator estimator;
    private final long intervalMillis;
    private final long horizonMillis;
    private volatile Executor forwardRuns = Runnable::run;
    private volatile LongConsumer forwardRunNanos = nanos -> { };
    private volatile Latest latest;
    /** A forward run is prepared or running: no other starts (a copy of a large core is not small either). */
    private final AtomicBoolean inFlight = new AtomicBoolean();
    /** Figures were published that no snapshot has carried yet. */
    private final AtomicBoolean unseen = new AtomicBoolean();
    /** Touched by the caller of {@link #due} and {@link #refresh} only (the loop's thread). */
    private long nextAt = Long.MIN_VALUE;
    private final LongSupplier nanoClock;
    /**
     * After a forward run that took longer than the interval, none starts again before as long as it took has
     * passed (on {@link #nanoClock}): on a large cluster the estimates thread is then busy at most half the time
     * instead of all of it, leaving the CPU to the loop and the other services.
     */
    private volatile long restUntilNanos;
    private volatile boolean resting;

    StartEstimates(RunTimeModel runTimes, Settings.Estimates settings) {
        this(runTimes, settings, System::nanoTime);
    }

    StartEstimates(RunTimeModel runTimes, Settings.Estimates settings, LongSupplier nanoClock) {
        this.nanoClock = nanoClock;
        this.horizonMillis = settings.horizon().toMillis();
        this.intervalMillis = settings.enabled() ? settings.interval().toMillis() : -1;
        this.estimator = new StartEstimator(runTimes, horizonMillis);
    }

    /** The one thread forward runs of a cluster go to: a daemon (it must not hold the JVM up), named for it. */
    static ExecutorService estimatesThread(String cluster) {
        return Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "allot-estimates-" + cluster);
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * Forward runs from now on go to {@code executor} (one thread: runs never overlap), and each one's
     * duration to {@code timer}.
     */
    void runOn(Executor executor, LongConsumer timer) {
        this.forwardRuns = executor;
        this.forwardRunNanos = timer;
    }

    /**
     * Whether a refresh is allowed at {@code now}: the interval has passed since the last one, none is in flight,
     * and the rest after the last forward run (as long as it took, if longer than the interval) is over.
     */
    boolean due(long now) {
        return intervalMillis > 0 && now >= nextAt && !inFlight.get()
                && (!resting || nanoClock.getAsLong() - restUntilNanos >= 0);
    }

    /**
     * Copies the core as it stands at {@code now} and hands its forward run to the executor. A failure
     * keeps the previous figures (logged; the next try waits for the interval like any refresh).
     *
     * @return whether a forward run was handed over (false: one is still in flight, or the copy failed)
     */
    boolean refresh(Scheduler core, long now) {
        if (!inFlight.compareAndSet(false, true)) {
            return false;
        }
        nextAt = now + intervalMillis;
        boolean handed = false;
        try {
            ForwardRun run = estimator.prepare(core);
            forwardRuns.execute(() -> complete(run, now));
            handed = true;
        } catch (RejectedExecutionException e) {
            LOG.debug("no start estimate: the estimates thread is shut down (the loop is stopping)");
        } catch (RuntimeException e) {
            LOG.error("start estimate failed (copying the core); the previous estimates stay published", e);
        } finally {
            if (!handed) {
                inFlight.set(false);
            }
        }
        return handed;
    }

    /** The forward run, on the estimates thread: publishes its figures, or keeps the previous ones. */
    private void complete(ForwardRun run, long copiedAt) {
        long began = nanoClock.getAsLong();
        try {
            latest = new Latest(copiedAt, horizonMillis, Map.copyOf(run.run()));
            unseen.set(true);
        } catch (RuntimeException e) {
            LOG.error("start estimate failed; the previous estimates stay published", e);
        } finally {
            long ended = nanoClock.getAsLong();
            long took = ended - began;
            restUntilNanos = ended + took;
            resting = took > intervalMillis * 1_000_000L;
            inFlight.set(false);
            forwardRunNanos.accept(ended - began);
        }
    }

    /** The last refresh's figures, null before the first. */
    Latest latest() {
        return latest;
    }

    /** Whether figures were published since the last call: the next snapshot should carry them. */
    boolean takeUnseen() {
        return unseen.getAndSet(false);
    }

    StartEstimator estimator() {
        return estimator;
    }
}
