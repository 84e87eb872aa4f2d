package dev.allot.core.estimate;

import dev.allot.core.JobRequest;

/** How long a job is expected to run once placed, and what that figure rests on. */
public interface RunTimeModel {

    RunTime expectedRun(JobRequest request);

    /** @param basis DECLARED, LEARNED or DEFAULT (never BEYOND_HORIZON) */
    record RunTime(long millis, StartEstimate.Basis basis) {}
}
