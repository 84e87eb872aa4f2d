package dev.allot.scheduler;

import dev.allot.core.Goodput;
import dev.allot.core.SchedulerConfig;
import dev.allot.core.policy.BudgetPolicy;
import java.time.Duration;

/**
 * The loop's configuration (keys {@code allot.scheduler.*}, see README).
 *
 * @param cluster the one cluster this instance schedules
 * @param usageFeed {@code budget-usage} (the accounting-service's rolling usage feeds the core's
 *     ledger) or {@code running-jobs} (the core charges the jobs it placed)
 * @param estimates how the expected start of waiting jobs is computed and how often
 * @param preemption when the core preempts (the defaults are the core's)
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
        Standby standby,
        Preemption preemption) {

    public Settings(String bootstrapServers, String registryUrl, String cluster, Duration tick, Duration lostAfter,
            Duration demandInterval, Duration snapshotMinInterval, int snapshotMaxEntries, int stopGraceSeconds,
            String usageFeed, Estimates estimates, Standby standby) {
        this(bootstrapServers, registryUrl, cluster, tick, lostAfter, demandInterval, snapshotMinInterval,
                snapshotMaxEntries, stopGraceSeconds, usageFeed, estimates, standby, Preemption.DEFAULTS);
    }

    /**
     * When the core preempts (README, "Preemption"; scheduler-core/README "Preemption" for the rules). Every
     * instance of a cluster, and a replay of its log, must run the same values: decisions are re-derived
     * from the log with them.
     *
     * @param margin how much higher the victim's side's ratio must be than the preemptor's
     *     ({@link SchedulerConfig#DEFAULT_PREEMPTION_MARGIN})
     * @param protectedFraction the share rule: a team displaces allocated work only while it runs less than
     *     its share of the cluster, and only from a side running more than this times its share (1; 0: off)
     * @param laneKeepsAllocated where the cluster holds nodes for the debug lane, lane jobs wait for them
     *     instead of displacing allocated work (true)
     * @param heldReservations a reservation whose holder may preempt stays with its job until it starts
     *     (true)
     */
    public record Preemption(double margin, double protectedFraction, boolean laneKeepsAllocated,
            boolean heldReservations) {
        public static final Preemption DEFAULTS = new Preemption(SchedulerConfig.defaults().preemptionMargin(),
                BudgetPolicy.DEFAULT_PROTECTED_FRACTION, !Goodput.defaults().laneDisplacesAllocated(),
                Goodput.defaults().heldReservations());

        public Preemption {
            if (margin < 0 || protectedFraction < 0) {
                throw new IllegalArgumentException("allot.scheduler.preemption: margin and protected-fraction must not"
                        + " be negative (" + margin + ", " + protectedFraction + ")");
            }
        }

        /**
         * The rules from {@code allot.scheduler.preemption.*} keys as {@code lookup} finds them (system
         * properties for the audit), each missing key at its default.
         */
        public static Preemption from(java.util.function.UnaryOperator<String> lookup) {
            String m = lookup.apply("allot.scheduler.preemption.margin");
            String f = lookup.apply("allot.scheduler.preemption.protected-fraction");
            String l = lookup.apply("allot.scheduler.preemption.lane-keeps-allocated");
            String h = lookup.apply("allot.scheduler.preemption.held-reservations");
            return new Preemption(m != null ? Double.parseDouble(m) : DEFAULTS.margin,
                    f != null ? Double.parseDouble(f) : DEFAULTS.protectedFraction,
                    l != null ? Boolean.parseBoolean(l) : DEFAULTS.laneKeepsAllocated,
                    h != null ? Boolean.parseBoolean(h) : DEFAULTS.heldReservations);
        }

        /** {@code base} with these rules. */
        public SchedulerConfig applyTo(SchedulerConfig base) {
            return base.withPreemptionMargin(margin).withGoodput(base.goodput()
                    .withLaneDisplacingAllocated(!laneKeepsAllocated).withHeldReservations(heldReservations));
        }

        public BudgetPolicy policy() {
            return new BudgetPolicy(margin, BudgetPolicy.DEFAULT_PROTECTED_RATIO, protectedFraction);
        }
    }

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
                snapshotMaxEntries, stopGraceSeconds, usageFeed, estimates, standby, preemption);
    }

    public Settings withLostAfter(Duration d) {
        return new Settings(bootstrapServers, registryUrl, cluster, tick, d, demandInterval, snapshotMinInterval,
                snapshotMaxEntries, stopGraceSeconds, usageFeed, estimates, standby, preemption);
    }

    public Settings withDemandInterval(Duration d) {
        return new Settings(bootstrapServers, registryUrl, cluster, tick, lostAfter, d, snapshotMinInterval,
                snapshotMaxEntries, stopGraceSeconds, usageFeed, estimates, standby, preemption);
    }

    public Settings withEstimates(Estimates e) {
        return new Settings(bootstrapServers, registryUrl, cluster, tick, lostAfter, demandInterval, snapshotMinInterval,
                snapshotMaxEntries, stopGraceSeconds, usageFeed, e, standby, preemption);
    }

    public Settings withPreemption(Preemption p) {
        return new Settings(bootstrapServers, registryUrl, cluster, tick, lostAfter, demandInterval, snapshotMinInterval,
                snapshotMaxEntries, stopGraceSeconds, usageFeed, estimates, standby, p);
    }

    public Settings withStandby(Standby s) {
        return new Settings(bootstrapServers, registryUrl, cluster, tick, lostAfter, demandInterval, snapshotMinInterval,
                snapshotMaxEntries, stopGraceSeconds, usageFeed, estimates, s, preemption);
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
