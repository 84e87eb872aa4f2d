package dev.allot.budget.api;

import dev.allot.schemas.JobState;
import dev.allot.schemas.QueueEntry;
import dev.allot.schemas.QueueSnapshot;
import dev.allot.schemas.StartEstimateBasis;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A waiting job's expected start as {@code GET /jobs/{id}} answers it: the scheduler's figure from its
 * latest queue snapshot, what it rests on, and what that means to the reader (how far to trust it).
 */
final class ExpectedStart {

    private ExpectedStart() {
    }

    /**
     * {@code at} (ISO-8601, null beyond the horizon), {@code basis}, {@code beyondHorizon},
     * {@code horizonSeconds}, {@code estimatedAt}, {@code lowConfidence} and {@code note}; null when the
     * entry is not a waiting job's or the scheduler has not estimated it yet.
     */
    static Map<String, Object> of(QueueSnapshot snapshot, QueueEntry entry) {
        StartEstimateBasis basis = entry.getExpectedStartBasis();
        if (entry.getState() != JobState.WAITING || basis == null) {
            return null;
        }
        Long horizon = snapshot.getEstimateHorizonSeconds();
        Map<String, Object> start = new LinkedHashMap<>();
        start.put("at", entry.getExpectedStart() == null ? null : entry.getExpectedStart().toString());
        start.put("basis", basis.name());
        start.put("beyondHorizon", basis == StartEstimateBasis.BEYOND_HORIZON);
        start.put("horizonSeconds", horizon);
        start.put("estimatedAt", snapshot.getEstimatedAt() == null ? null : snapshot.getEstimatedAt().toString());
        start.put("lowConfidence", basis == StartEstimateBasis.DEFAULT);
        start.put("note", note(basis, horizon));
        return start;
    }

    static String note(StartEstimateBasis basis, Long horizonSeconds) {
        return switch (basis) {
            case DECLARED -> "from the expected durations the jobs it waits for declared";
            case LEARNED -> "from what finished jobs of the same team and shape ran";
            case DEFAULT -> "low confidence: some jobs it waits for declared no expected duration and none of their"
                    + " team's jobs of that shape has finished yet, so the scheduler's default run time stands in";
            case BEYOND_HORIZON -> "not expected to start within the scheduler's horizon"
                    + (horizonSeconds == null ? "" : " of " + days(horizonSeconds)) + " as the queue stands";
        };
    }

    private static String days(long seconds) {
        Duration d = Duration.ofSeconds(seconds);
        return d.toHours() % 24 == 0 && d.toDays() > 0 ? d.toDays() + " days" : d.toHours() + " hours";
    }
}
