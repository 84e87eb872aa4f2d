package dev.allot.accounting.book;

import java.util.List;

/** Answers of the accounting views (REST and replay print the same records). */
public final class Figures {

    private Figures() {
    }

    /** Rolling usage of an account (own + descendants) over the window ending at windowEnd. */
    public record Usage(String cluster, String account, String parent, Double fraction, long windowStart,
                        long windowEnd, double chargedGpuSeconds, double unallocatedGpuSeconds,
                        Double entitledGpuSeconds, Double ratio) {
    }

    /** One hour of an account (own + descendants). */
    public record Hour(long hourStart, double chargedGpuSeconds, double unallocatedGpuSeconds,
                       double demandedGpuSeconds) {
    }

    /** One hour of the owed-hours ledger; entitled is null when the cluster capacity or the account is unknown. */
    public record LedgerHour(long hourStart, Double entitledGpuSeconds, double demandedGpuSeconds,
                             double owedGpuSeconds, double deliveredGpuSeconds) {
    }

    /**
     * The ledger over [from, to): totals in GPU-hours; deliveredOverOwed is scheduler-core's
     * {@code OwedHours.Team.ratio()} (capped at 1, 1 when owed nothing), uncapped is the plain quotient.
     */
    public record Ledger(String cluster, String account, long from, long to, double entitledGpuHours,
                         double demandedGpuHours, double owedGpuHours, double deliveredGpuHours,
                         double deliveredOverOwed, Double deliveredOverOwedUncapped, boolean entitlementKnown,
                         List<LedgerHour> hours) {
    }
}
