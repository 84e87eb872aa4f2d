package dev.allot.scheduler;

import dev.allot.core.Scheduler;
import dev.allot.core.estimate.RunTimeModel;
import dev.allot.core.estimate.StartEstimate;
import dev.allot.core.estimate.StartEstimator;
import java.util.Map;
import org.jboss.logging.Logger;

/**
 * The expected starts the queue snapshot carries: the core's {@link StartEstimator} (a forward run of
 * the live core on a virtual clock) run at most once per interval. The estimator reads the live core,
 * which is single-threaded, so the loop runs it on its own thread between steps, after a step's
 * transaction is committed: a refresh delays the next poll, never a decision already taken. Between
 * refreshes the last figures are published; a job that arrived since has none yet.
 */
final class StartEstimates {

    private static final Logger LOG = Logger.getLogger(StartEstimates.class);

    /** One refresh's answer: the estimates of the jobs that waited at {@code computedAtMillis}. */
    record Latest(long computedAtMillis, long horizonMillis, Map<String, StartEstimate> byJob) {
    }

    private final StartEstimator estimator;
    private final long intervalMillis;
    private final long horizonMillis;
    private Latest latest;
    private long nextAt = Long.MIN_VALUE;

    StartEstimates(RunTimeModel runTimes, Settings.Estimates settings) {
        this.horizonMillis = settings.horizon().toMillis();
        this.intervalMillis = settings.enabled() ? settings.interval().toMillis() : -1;
        this.estimator = new StartEstimator(runTimes, horizonMillis);
    }

    /** Whether a refresh is allowed at {@code now}: the interval has passed since the last one. */
    boolean due(long now) {
        return intervalMillis > 0 && now >= nextAt;
    }

    /**
     * Runs the estimator on the core as it stands at {@code now}. A failure keeps the previous figures
     * (logged; the next try waits for the interval like any refresh).
     *
     * @return whether new figures were computed
     */
    boolean refresh(Scheduler core, long now) {
        nextAt = now + intervalMillis;
        try {
            latest = new Latest(now, horizonMillis, Map.copyOf(estimator.estimate(core)));
            return true;
        } catch (RuntimeException e) {
            LOG.error("start estimate failed; the previous estimates stay published", e);
            return false;
        }
    }

    /** The last refresh's figures, null before the first. */
    Latest latest() {
        return latest;
    }

    StartEstimator estimator() {
        return estimator;
    }
}
