package dev.allot.core;

/** Where the usage ledger gets its GPU-seconds from. */
public enum UsageFeed {
    /**
     * The core charges running jobs itself whenever time advances ({@link Scheduler#advanceTo} or
     * {@link Scheduler#schedule}): allocated jobs to charged, unallocated jobs to unallocated
     * GPU-seconds. The simulator uses this; {@link Scheduler#recordUsage} then adds on top.
     */
    RUNNING_JOBS,
    /**
     * Only {@link Scheduler#recordUsage} feeds the ledger (the scheduler-service, from the usage
     * or budget-usage topic). Running jobs are not charged by the core.
     */
    USAGE_RECORDS
}
