package dev.allot.scheduler;

import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * The projection of an instance that lost the role cleanly (dropped from the group between two steps: a loaded
 * machine that starved its heartbeats, a step longer than the stall limit), kept in case the group hands the role
 * straight back. A rebuild from the log takes tens of seconds on a busy cluster; when nobody else wrote in
 * between, the projection is still exactly the log's, and the instance goes on from where it was.
 *
 * <p>Every transaction of an active term commits the position of <em>every</em> input partition, tagged with the
 * term's id ({@link #offsets}). Another instance that was active meanwhile and made any decision visible committed
 * its own tag with it (it cannot commit decisions without offsets); one that wrote nothing changed nothing this
 * projection does not know. So the projection is kept only if the group's committed offsets are, partition by
 * partition, the ones this term committed last, with its tag ({@link #stillTheLog}).
 *
 * @param term the id of the term that built the projection (its tag on every offset it committed)
 * @param committed the offsets that term committed last, per input partition (null where it committed none)
 * @param applied the position after the last input applied to the projection, per input partition: the inputs
 *     between {@code committed} and {@code applied} were applied in steps that wrote nothing (their offsets are
 *     committed at most once a second), and are not applied twice
 * @param lostAtMillis when the role was lost: the nodes are not held to the time nobody read their heartbeats
 */
record KeptProjection(Recovery.Rebuilt rebuilt, String term, Map<TopicPartition, Long> committed,
        Map<TopicPartition, Long> applied, long lostAtMillis) {

    /** The offsets a term commits: every input partition's position, tagged with the term. */
    static Map<TopicPartition, OffsetAndMetadata> offsets(Map<TopicPartition, Long> positions, String term) {
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        positions.forEach((tp, position) -> offsets.put(tp, new OffsetAndMetadata(position, term)));
        return offsets;
    }

    /** The positions that differ from the ones committed (a later commit of the term carries only these). */
    static Map<TopicPartition, Long> moved(Map<TopicPartition, Long> positions, Map<TopicPartition, Long> committed) {
        Map<TopicPartition, Long> moved = new HashMap<>();
        positions.forEach((tp, position) -> {
            if (!position.equals(committed.get(tp))) {
                moved.put(tp, position);
            }
        });
        return moved;
    }

    /**
     * Whether the group's committed offsets (every input partition of the new term, null where none) are still the
     * ones this projection's term committed last: nobody else made a decision visible since.
     */
    boolean stillTheLog(Map<TopicPartition, OffsetAndMetadata> groupCommitted) {
        if (!groupCommitted.keySet().equals(committed.keySet()) || !applied.keySet().equals(committed.keySet())) {
            return false; // the inputs changed (partitions added): rebuild with them
        }
        for (Map.Entry<TopicPartition, OffsetAndMetadata> e : groupCommitted.entrySet()) {
            Long ours = committed.get(e.getKey());
            OffsetAndMetadata theirs = e.getValue();
            if (ours == null || theirs == null) {
                if (ours != null || theirs != null) {
                    return false;
                }
                continue;
            }
            if (theirs.offset() != ours || !Objects.equals(theirs.metadata(), term)) {
                return false;
            }
        }
        return true;
    }
}
