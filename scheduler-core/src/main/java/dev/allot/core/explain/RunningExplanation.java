package dev.allot.core.explain;

/**
 * Where a running job stands under its contract.
 *
 * @param protectedUntilMillis end of its protected window (placement + minimum runtime)
 * @param preemptibleNow true when its protected window has passed or it is unallocated
 */
public record RunningExplanation(String jobId, long protectedUntilMillis, boolean preemptibleNow, String reason) {
}
