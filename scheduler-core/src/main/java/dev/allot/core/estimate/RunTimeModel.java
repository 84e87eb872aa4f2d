package dev.allot.core.estimate;

import dev.allot.core.JobRequest;

/** How long a job is expected to run once placed, and what that figure rests on. */
public interface RunTimeModel {

    RunTime expectedRun(JobRequest request);

    /**
     * How much longer a job that has run {@code ranMillis} since its placement is expected to run.
     * The default is what {@link #expectedRun} leaves of it, never below 0 (a job past its expected
     * run ends at once); a model that knows the spread of run times may do better for jobs that
     * already ran past the typical run.
     */
    default RunTime expectedRemaining(JobRequest request, long ranMillis) {
        RunTime whole = expectedRun(request);
        return new RunTime(Math.max(0, whole.millis() - Math.max(0, ranMillis)), whole.basis());
    }

    /**
     * The model as it stands, for a forward run on another thread ({@link StartEstimator#prepare}): a
     * model that learns while jobs finish returns a copy that does not, so one run sees one set of
     * figures and never contends with the thread that feeds the model. A fixed model returns itself.
     */
    default RunTimeModel snapshot() {
        return this;
    }

    /** @param basis DECLARED, LEARNED or DEFAULT (never BEYOND_HORIZON) */
    record RunTime(long millis, StartEstimate.Basis basis) {}
}
