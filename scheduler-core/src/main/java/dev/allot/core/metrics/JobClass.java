package dev.allot.core.metrics;

/**
 * The job classes waits are reported for.
 *
 * <ul>
 *   <li>DEBUG: a job declared as debug (a few GPUs, minimum runtime of 15 minutes or less);</li>
 *   <li>LARGE: any other job of {@value #LARGE_GPUS} GPUs or more (all replicas together);</li>
 *   <li>SMALL: everything else.</li>
 * </ul>
 */
public enum JobClass {
    DEBUG,
    SMALL,
    LARGE;

    /** A job of this many GPUs or more is large. */
    public static final int LARGE_GPUS = 64;

    /** The largest minimum runtime a debug job may declare (15 minutes), in seconds. */
    public static final long DEBUG_MAX_MIN_RUNTIME_SECONDS = 15 * 60;

    public static JobClass of(int gpus, boolean debug) {
        if (debug) {
            return DEBUG;
        }
        return gpus >= LARGE_GPUS ? LARGE : SMALL;
    }

    /** Lower-case name used in reports and JSON ("debug", "small", "large"). */
    public String label() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
