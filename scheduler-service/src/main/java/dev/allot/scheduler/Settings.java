package dev.allot.scheduler;

import java.time.Duration;

/**
 * The loop's configuration (keys {@code allot.scheduler.*}, see README).
 *
 * @param cluster the one cluster this instance schedules
 * @param usageFeed {@code budget-usage} (the accounting-service's rolling usage feeds the core's
 *     ledger) or {@code running-jobs} (the core charges the jobs it placed)
 * @param estimates how the expected start of waiting jobs is computed and how often
 */
public record Settings(
        String bootstrapServers,
        String registryUrl,
        String cluster,
        Duration tick,
        Duration lostAfter,
        Duration demandInterval,
        Duration snapshotMinInterval,
        int snapshotMaxEntries,
        int stopGraceSeconds,
        String usageFeed,
        Estimates estimates,
        Standby standby) {

    /**
     * How the cluster's instances share the active role (README, "Standby"): the consumer group elects one
     * active instance; the others wait.
     *
     * @param failoverAfter an active instance not heard from for this long (killed, frozen, cut off) loses the
     *     role to a standby: the group's session timeout (the broker accepts 6 s to 30 min by default)
     * @param stallLimit an active instance whose loop does not come back to read its inputs for this long (a
     *     step, or a rebuild, that hangs) gives the role up: the group's poll interval
     */
    public record Standby(Duration failoverAfter, Duration stallLimit) {
        public static final Standby DEFAULTS = new Standby(Duration.ofSeconds(10), Duration.ofMinutes(5));
    }

    /**
     * The expected starts published in the queue snapshot (README, "Expected start").
     *
     * @param interval at most one refresh per interval (a forward run of the core); zero: no estimates
     * @param horizon how far ahead the forward run looks; a job not placed by then is beyond the horizon
     * @param defaultRunTime how long a job runs when it declared no expected duration and its team has
     *     no finished job of its shape to learn from
     */
    public record Estimates(Duration interval, Duration horizon, Duration defaultRunTime) {
        public static final Estimates DEFAULTS = new Estimates(Duration.ofSeconds(5), Duration.ofDays(7),
                Duration.ofHours(1));

        public boolean enabled() {
            return !interval.isZero() && !interval.isNegative();
        }
    }

    public static Settings of(String bootstrapServers, String registryUrl, String cluster) {
        return new Settings(bootstrapServers, registryUrl, cluster, Duration.ofSeconds(1), Duration.ofSeconds(30),
                Duration.ofSeconds(60), Duration.ofSeconds(1), 500, 30, "budget-usage", Estimates.DEFAULTS, Standby.DEFAULTS);
    }

    public Settings withTick(Duration d) {
        return new Settings(bootstrapServers, registryUrl, cluster, d, lostAfter, demandInterval, snapshotMinInterval,
                snapshotMaxEntries, stopGraceSeconds, usageFeed, estimates, standby);
    }

    public Settings withLostAfter(Duration d) {
        return new Settings(bootstrapServers, registryUrl, cluster, tick, d, demandInterval, snapshotMinInterval,
                snapshotMaxEntries, stopGraceSeconds, usageFeed, estimates, standby);
    }

    public Settings withDemandInterval(Duration d) {
        return new Settings(bootstrapServers, registryUrl, cluster, tick, lostAfter, d, snapshotMinInterval,
                snapshotMaxEntries, stopGraceSeconds, usageFeed, estimates, standby);
    }

    public Settings withEstimates(Estimates e) {
        return new Settings(bootstrapServers, registryUrl, cluster, tick, lostAfter, demandInterval, snapshotMinInterval,
                snapshotMaxEntries, stopGraceSeconds, usageFeed, e, standby);
    }

    public Settings withStandby(Standby s) {
        return new Settings(bootstrapServers, registryUrl, cluster, tick, lostAfter, demandInterval, snapshotMinInterval,
                snapshotMaxEntries, stopGraceSeconds, usageFeed, estimates, s);
    }

    /** Transactional id: one per cluster, so the instance that becomes active fences any older one. */
    public String transactionalId() {
        return "allot-scheduler-" + cluster;
    }

    /** Consumer group: elects the active instance, and its committed offsets say which input records are applied. */
    public String groupId() {
        return "allot-scheduler-" + cluster;
    }

    /** Name in dead letters. */
    public String consumerName() {
        return "scheduler-service/" + cluster;
    }
}
