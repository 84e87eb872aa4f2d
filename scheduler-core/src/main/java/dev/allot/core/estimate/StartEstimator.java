package dev.allot.core.estimate;

import dev.allot.core.JobView;
import dev.allot.core.Scheduler;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Expected start of every waiting job: runs a copy of the live core forward on a virtual clock
 * (running jobs end at their expected end, no new arrivals) and notes when each waiting job is
 * first placed. The live core is not changed.
 */
public final class StartEstimator {

    private final RunTimeModel runTimes;
    private final long horizonMillis;

    /** @param horizonMillis how far ahead to look; jobs not placed by then are BEYOND_HORIZON */
    public StartEstimator(RunTimeModel runTimes, long horizonMillis) {
        this.runTimes = runTimes;
        this.horizonMillis = horizonMillis;
    }

    /** Estimates for every waiting job of every cluster, keyed by job id, in queue order per cluster. */
    public Map<String, StartEstimate> estimate(Scheduler live) {
        // stub (interface fixed for the services): the estimator issue replaces this with the forward run
        LinkedHashMap<String, StartEstimate> out = new LinkedHashMap<>();
        for (String cluster : live.clusters()) {
            for (JobView j : live.waiting(cluster)) {
                out.put(j.jobId(), new StartEstimate(j.jobId(), live.nowMillis() + horizonMillis,
                        StartEstimate.Basis.BEYOND_HORIZON));
            }
        }
        return out;
    }
}
