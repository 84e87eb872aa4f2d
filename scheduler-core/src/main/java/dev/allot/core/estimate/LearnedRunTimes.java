package dev.allot.core.estimate;

import dev.allot.core.JobRequest;

/**
 * Run times: the submission's expected duration if declared, else what the team's finished jobs
 * of the same shape ran, else a default. Fed with every job that finished (not preempted).
 */
public final class LearnedRunTimes implements RunTimeModel {

    private final long defaultMillis;

    public LearnedRunTimes(long defaultMillis) {
        this.defaultMillis = defaultMillis;
    }

    /** A job of this shape and account ran {@code ranMillis} to completion. */
    public void observe(JobRequest request, long ranMillis) {
        // stub: the estimator issue fills this in
    }

    @Override
    public RunTime expectedRun(JobRequest request) {
        if (request.expectedDurationMillis() > 0) {
            return new RunTime(request.expectedDurationMillis(), StartEstimate.Basis.DECLARED);
        }
        return new RunTime(defaultMillis, StartEstimate.Basis.DEFAULT);
    }
}
