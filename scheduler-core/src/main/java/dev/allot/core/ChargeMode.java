package dev.allot.core;

/**
 * How a job's GPU-seconds are accounted (brief, "Charging").
 *
 * <p>ALLOCATED jobs (minimum runtime &gt; 0) are charged for every GPU-second held, from
 * placement to release, and are protected during their minimum runtime. UNALLOCATED jobs
 * (minimum runtime 0) are free, never charged, never protected.
 */
public enum ChargeMode {
    ALLOCATED,
    UNALLOCATED
}
