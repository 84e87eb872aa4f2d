package dev.allot.accounting.streams;

import java.time.Duration;

/**
 * @param window        lookback of the rolling sum (7 days)
 * @param grace         how late (behind the stream time) usage may arrive and still land in its hour
 * @param emitInterval  how often changed sums are published (changes are coalesced in between) and
 *                      the clock is checked for hours leaving the window
 * @param retention     how long hourly rows are kept for history and the ledger (at least window + grace)
 * @param partitions    partitions of the internal re-keyed topic (by cluster)
 */
public record AccountingSettings(Duration window, Duration grace, Duration emitInterval, Duration retention,
                                 int partitions) {

    public AccountingSettings {
        if (window.toMillis() % 3_600_000L != 0 || window.isZero()) {
            throw new IllegalArgumentException("the window must be a whole number of hours: " + window);
        }
        if (retention.compareTo(window.plus(grace)) < 0) {
            retention = window.plus(grace);
        }
    }

    public static AccountingSettings defaults() {
        return new AccountingSettings(Duration.ofDays(7), Duration.ofHours(1), Duration.ofSeconds(1),
                Duration.ofDays(400), 6);
    }

    public AccountingSettings withEmitInterval(Duration d) {
        return new AccountingSettings(window, grace, d, retention, partitions);
    }

    public AccountingSettings withPartitions(int p) {
        return new AccountingSettings(window, grace, emitInterval, retention, p);
    }
}
