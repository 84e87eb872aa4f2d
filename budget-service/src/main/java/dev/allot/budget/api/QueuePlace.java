package dev.allot.budget.api;

import dev.allot.budget.AvroJson;
import dev.allot.budget.queue.QueueBoard;
import dev.allot.schemas.QueueEntry;
import dev.allot.schemas.QueueSnapshot;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Where a job stands in its cluster's latest queue snapshot, for {@code GET /jobs/{id}}: the same
 * position and reason {@code /queue} shows, so a user need not search the whole queue for their job.
 */
final class QueuePlace {

    private QueuePlace() {
    }

    /**
     * The job's entry, or null when the scheduler has not published it: no snapshot yet, the job is past
     * the snapshot's length, or the snapshot predates the job's current state (a finished job keeps no
     * stale reason).
     */
    static Map<String, Object> of(QueueBoard board, String cluster, String jobId, String state) {
        Found found = find(board, cluster, jobId, state);
        if (found == null) {
            return null;
        }
        // the entry exactly as /queue renders it, with the snapshot's time
        Map<String, Object> place = new LinkedHashMap<>();
        place.put("asOf", found.snapshot().getAt().toString());
        place.putAll(AvroJson.toMap(found.entry()));
        return place;
    }

    /** The job's expected start from its entry ({@link ExpectedStart}), or null. */
    static Map<String, Object> expectedStart(QueueBoard board, String cluster, String jobId, String state) {
        Found found = find(board, cluster, jobId, state);
        return found == null ? null : ExpectedStart.of(found.snapshot(), found.entry());
    }

    private record Found(QueueSnapshot snapshot, QueueEntry entry) {
    }

    private static Found find(QueueBoard board, String cluster, String jobId, String state) {
        if (cluster == null) {
            return null;
        }
        Optional<QueueSnapshot> snapshot = board.latest(cluster);
        if (snapshot.isEmpty()) {
            return null;
        }
        for (QueueEntry entry : snapshot.get().getEntries()) {
            if (entry.getJobId().equals(jobId)) {
                return entry.getState().name().equals(state) ? new Found(snapshot.get(), entry) : null;
            }
        }
        return null;
    }
}
