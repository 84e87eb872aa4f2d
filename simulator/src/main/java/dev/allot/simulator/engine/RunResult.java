package dev.allot.simulator.engine;

import dev.allot.core.metrics.ClusterMetrics;

/**
 * What one policy run produced.
 *
 * @param metrics the accumulated metrics (hourly series per team for the report)
 * @param result the figures
 * @param preemptionTimes seconds at which a preemption happened (sorted)
 * @param preemptionTeams the victim's team for each entry of {@code preemptionTimes}
 * @param passes scheduling passes run
 * @param preemptionsOfUnallocated how many of the preemptions displaced unallocated jobs
 * @param lostGpuHoursOfUnallocated the part of the lost GPU-hours that unallocated victims lost
 */
public record RunResult(String policy, String variant, ClusterMetrics metrics, ClusterMetrics.Result result,
        int submitted, int finished, int runningAtEnd, int waitingAtEnd, int rejected, long passes,
        double[] preemptionTimes, String[] preemptionTeams, long wallMillis, int preemptionsOfUnallocated,
        double lostGpuHoursOfUnallocated) {
}
