package dev.allot.core.explain;

/** What holds a waiting job. */
public enum Hold {
    /** Not looked at yet (the job arrived after the last pass). */
    NOT_YET_SCHEDULED,
    /** Not enough free GPUs in the right shape, and nothing it may preempt. */
    MISSING_RESOURCE,
    /** Nodes are reserved for a better-ranked blocked job and this job may not backfill them. */
    RESERVATION,
    /** It is the job nodes are reserved for; it starts when they free up. */
    WAITING_FOR_RESERVATION,
    /** The policy's admission limit (e.g. a team's GPU limit or quota) keeps it waiting. */
    ADMISSION_LIMIT,
    /** The cluster has no nodes able to hold a replica of this size (too few nodes / GPUs). */
    NO_SUCH_SHAPE
}
