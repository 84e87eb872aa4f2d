package dev.allot.core;

import dev.allot.core.contract.Contract;
import dev.allot.core.ordering.DebugLane;

/**
 * Tunables of the core. Use {@link #defaults()} and the {@code with*} methods.
 *
 * @param windowMillis lookback window of the fair-share ratio (7 days by default)
 * @param bucketMillis granularity of the usage ledger's ring of buckets (1 hour by default);
 *     the window slides by whole buckets
 * @param maxMinRuntimeMillis the largest minimum runtime a job may declare
 *     ({@link Contract#MAX_MIN_RUNTIME_MILLIS}, 8 h, by default)
 * @param preemptionMargin how much higher (absolute ratio difference) the victim's ratio must be
 *     than the preemptor's, at the level of the tree where their accounts diverge, so two accounts
 *     cannot displace each other back and forth (0.1 by default)
 * @param usageFeed who feeds the usage ledger
 * @param maxReservationsPerCluster how many blocked top-ranked jobs per cluster get nodes reserved
 *     (1 by default)
 * @param debugLane bounds of the debug lane, used by policies that have one ({@link DebugLane#defaults()})
 * @param goodput how preemption keeps from throwing work away ({@link Goodput#defaults()})
 * @param walkShortcuts whether a pass may skip accounts and stop walking once nothing later in the
 *     order can change anything (true by default). Off, every pass visits every waiting job: the
 *     same decisions and explanations, only slower; the tests compare the two.
 */
public record SchedulerConfig(
        long windowMillis,
        long bucketMillis,
        long maxMinRuntimeMillis,
        double preemptionMargin,
        UsageFeed usageFeed,
        int maxReservationsPerCluster,
        DebugLane debugLane,
        boolean walkShortcuts,
        Goodput goodput) {

    public static final long HOUR = 3_600_000L;
    public static final long DAY = 24 * HOUR;

    public SchedulerConfig {
        if (windowMillis <= 0 || bucketMillis <= 0 || windowMillis < bucketMillis) {
            throw new IllegalArgumentException("window and bucket must be positive, window >= bucket");
        }
        if (maxMinRuntimeMillis < 0 || preemptionMargin < 0 || maxReservationsPerCluster < 0) {
            throw new IllegalArgumentException("negative tunable");
        }
        java.util.Objects.requireNonNull(debugLane, "debugLane");
        java.util.Objects.requireNonNull(goodput, "goodput");
    }

    /** The preemption margin's default, the one value every entry point (service, simulator, what-if) starts from. */
    public static final double DEFAULT_PREEMPTION_MARGIN = 0.1;

    public static SchedulerConfig defaults() {
        return new SchedulerConfig(7 * DAY, HOUR, Contract.MAX_MIN_RUNTIME_MILLIS, DEFAULT_PREEMPTION_MARGIN, UsageFeed.RUNNING_JOBS, 1, DebugLane.defaults(), true, Goodput.defaults());
    }

    public SchedulerConfig withWindow(long millis, long bucket) {
        return new SchedulerConfig(millis, bucket, maxMinRuntimeMillis, preemptionMargin, usageFeed,
                maxReservationsPerCluster, debugLane, walkShortcuts, goodput);
    }

    public SchedulerConfig withMaxMinRuntime(long millis) {
        return new SchedulerConfig(windowMillis, bucketMillis, millis, preemptionMargin, usageFeed,
                maxReservationsPerCluster, debugLane, walkShortcuts, goodput);
    }

    public SchedulerConfig withPreemptionMargin(double margin) {
        return new SchedulerConfig(windowMillis, bucketMillis, maxMinRuntimeMillis, margin, usageFeed,
                maxReservationsPerCluster, debugLane, walkShortcuts, goodput);
    }

    public SchedulerConfig withUsageFeed(UsageFeed feed) {
        return new SchedulerConfig(windowMillis, bucketMillis, maxMinRuntimeMillis, preemptionMargin, feed,
                maxReservationsPerCluster, debugLane, walkShortcuts, goodput);
    }

    public SchedulerConfig withDebugLane(DebugLane lane) {
        return new SchedulerConfig(windowMillis, bucketMillis, maxMinRuntimeMillis, preemptionMargin, usageFeed,
                maxReservationsPerCluster, lane, walkShortcuts, goodput);
    }

    public SchedulerConfig withMaxReservationsPerCluster(int n) {
        return new SchedulerConfig(windowMillis, bucketMillis, maxMinRuntimeMillis, preemptionMargin, usageFeed, n, debugLane,
                walkShortcuts, goodput);
    }

    public SchedulerConfig withWalkShortcuts(boolean on) {
        return new SchedulerConfig(windowMillis, bucketMillis, maxMinRuntimeMillis, preemptionMargin, usageFeed,
                maxReservationsPerCluster, debugLane, on, goodput);
    }

    public SchedulerConfig withGoodput(Goodput g) {
        return new SchedulerConfig(windowMillis, bucketMillis, maxMinRuntimeMillis, preemptionMargin, usageFeed,
                maxReservationsPerCluster, debugLane, walkShortcuts, g);
    }
}
