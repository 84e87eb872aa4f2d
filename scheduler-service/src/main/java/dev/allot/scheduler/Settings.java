package dev.allot.scheduler;

import java.time.Duration;

/**
 * The loop's configuration (keys {@code allot.scheduler.*}, see README).
 *
 * @param cluster the one cluster this instance schedules
 * @param usageFeed {@code budget-usage} (the accounting-service's rolling usage feeds the core's
 *     ledger) or {@code running-jobs} (the core charges the jobs it placed)
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
        String usageFeed) {

    public static Settings of(String bootstrapServers, String registryUrl, String cluster) {
        return new Settings(bootstrapServers, registryUrl, cluster, Duration.ofSeconds(1), Duration.ofSeconds(30),
                Duration.ofSeconds(60), Duration.ofSeconds(1), 500, 30, "budget-usage");
    }

    public Settings withTick(Duration d) {
        return new Settings(bootstrapServers, registryUrl, cluster, d, lostAfter, demandInterval, snapshotMinInterval,
                snapshotMaxEntries, stopGraceSeconds, usageFeed);
    }

    public Settings withLostAfter(Duration d) {
        return new Settings(bootstrapServers, registryUrl, cluster, tick, d, demandInterval, snapshotMinInterval,
                snapshotMaxEntries, stopGraceSeconds, usageFeed);
    }

    public Settings withDemandInterval(Duration d) {
        return new Settings(bootstrapServers, registryUrl, cluster, tick, lostAfter, d, snapshotMinInterval,
                snapshotMaxEntries, stopGraceSeconds, usageFeed);
    }

    /** Transactional id: one per cluster, so a second instance for the same cluster fences the first. */
    public String transactionalId() {
        return "allot-scheduler-" + cluster;
    }

    /** Consumer group whose committed offsets say which input records are already applied. */
    public String groupId() {
        return "allot-scheduler-" + cluster;
    }

    /** Name in dead letters. */
    public String consumerName() {
        return "scheduler-service/" + cluster;
    }
}
