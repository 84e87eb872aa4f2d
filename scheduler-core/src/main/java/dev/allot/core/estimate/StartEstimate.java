package dev.allot.core.estimate;

import java.util.Objects;

/**
 * When a waiting job is expected to start, from a forward run of the core on a virtual clock.
 *
 * @param jobId the waiting job
 * @param expectedStartMillis epoch millis of the expected start; meaningless when {@code basis} is
 *     {@link Basis#BEYOND_HORIZON}
 * @param basis what the figure rests on: the weakest run-time basis among the running jobs whose
 *     expected ends the estimate waited for
 */
public record StartEstimate(String jobId, long expectedStartMillis, Basis basis) {

    /** What an estimate rests on, strongest first. */
    public enum Basis {
        /** every run time it waited for was declared by its submitter */
        DECLARED,
        /** some were learned from the team's finished jobs of the same shape */
        LEARNED,
        /** some rest on the documented default run time: low confidence */
        DEFAULT,
        /** the job does not start within the estimator's horizon */
        BEYOND_HORIZON
    }

    public StartEstimate {
        Objects.requireNonNull(jobId, "jobId");
        Objects.requireNonNull(basis, "basis");
    }

    public boolean beyondHorizon() {
        return basis == Basis.BEYOND_HORIZON;
    }
}
