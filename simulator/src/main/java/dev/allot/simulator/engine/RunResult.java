package dev.allot.simulator.engine;

import dev.allot.core.metrics.ClusterMetrics;
import java.util.List;

/**
 * What one policy run produced.
 *
 * @param metrics the accumulated metrics (hourly series per team for the report)
 * @param result the figures
 * @param preemptions every preemption of the measured period in time order, as the metrics were told
 *     of it (times in seconds since the start of the period)
 * @param passes scheduling passes run
 * @param preemptionsOfUnallocated how many of the preemptions displaced unallocated jobs
 * @param lostGpuHoursOfUnallocated the part of the lost GPU-hours that unallocated victims lost
 * @param startEstimate the expected start's accuracy, or null when not measured
 */
public record RunResult(String policy, String variant, ClusterMetrics metrics, ClusterMetrics.Result result,
        int submitted, int finished, int runningAtEnd, int waitingAtEnd, int rejected, long passes,
        List<ClusterMetrics.Preemption> preemptions, long wallMillis, int preemptionsOfUnallocated,
        double lostGpuHoursOfUnallocated, StartEstimates.Accuracy startEstimate) {

    public RunResult(String policy, String variant, ClusterMetrics metrics, ClusterMetrics.Result result,
            int submitted, int finished, int runningAtEnd, int waitingAtEnd, int rejected, long passes,
            List<ClusterMetrics.Preemption> preemptions, long wallMillis, int preemptionsOfUnallocated,
            double lostGpuHoursOfUnallocated) {
        this(policy, variant, metrics, result, submitted, finished, runningAtEnd, waitingAtEnd, rejected, passes,
                preemptions, wallMillis, preemptionsOfUnallocated, lostGpuHoursOfUnallocated, null);
    }

    public RunResult {
        preemptions = List.copyOf(preemptions);
    }

    /** Seconds since the start of the period at which a preemption happened (sorted). */
    public double[] preemptionTimes() {
        double[] t = new double[preemptions.size()];
        for (int i = 0; i < t.length; i++) {
            t[i] = preemptions.get(i).atSeconds();
        }
        return t;
    }
}
