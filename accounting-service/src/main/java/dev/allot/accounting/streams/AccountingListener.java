package dev.allot.accounting.streams;

import dev.allot.accounting.book.Fact;

/** What the topology reports to metrics. */
public interface AccountingListener {

    /** A usage or demand fact was booked into its hourly rows. */
    default void booked(Fact fact) {
    }

    /** A fact arrived behind its input partition's event time, but within grace (it is booked). */
    default void lateWithinGrace(Fact fact) {
    }

    /** A record went to the dead letters; kind is "malformed", "invalid" or "too-late". */
    default void deadLettered(String sourceTopic, String kind) {
    }

    default void published(int budgetUsages) {
    }

    AccountingListener NONE = new AccountingListener() {
    };
}
