package dev.allot.scheduler;

import dev.allot.schemas.catalogue.Topics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.errors.WakeupException;

/**
 * Whether node-status is read far enough to judge a silent node lost: a node is heard when its heartbeat is read,
 * so while heartbeats wait unread behind other records a healthy node only looks silent, and losing it would fence
 * the jobs it runs.
 *
 * <p>The broker is asked where node-status ends (one ListOffsets request, made only while some node looks silent).
 * The consumer's cached lag is not enough: it is the end the last fetch response saw, and a fetch answered while a
 * backlog was still being written reports an end the consumer reaches long before the real one. Read up means
 * either at the end the broker reports now, or past the end it reported at the previous check, if that check is
 * recent: at scale other nodes' heartbeats land all the time, so the end now is rarely reached, but every heartbeat
 * sent before the previous check has been read. A broker that does not answer defers the verdict.
 */
final class HeartbeatBacklog {

    /** Returned when the broker could not say where node-status ends. */
    static final long UNKNOWN = -1;

    private final Duration askFor;
    private final long markValidMillis;
    private Map<TopicPartition, Long> mark;
    private long markedAt;

    /**
     * @param askFor how long the broker is given to answer
     * @param markValidMillis how old the previous check's end may be to count (a fraction of {@code lost-after})
     */
    HeartbeatBacklog(Duration askFor, long markValidMillis) {
        this.askFor = askFor;
        this.markValidMillis = markValidMillis;
    }

    /**
     * Node-status records to read before a silent node may be judged lost at {@code now}: 0 when read up,
     * {@link #UNKNOWN} when the broker did not answer in time.
     */
    long unread(Consumer<?, ?> consumer, long now) {
        List<TopicPartition> nodeStatus = new ArrayList<>();
        for (TopicPartition tp : consumer.assignment()) {
            if (tp.topic().equals(Topics.NODE_STATUS.name())) {
                nodeStatus.add(tp);
            }
        }
        if (nodeStatus.isEmpty()) {
            return 0;
        }
        Map<TopicPartition, Long> previous = now - markedAt <= markValidMillis ? mark : null;
        try {
            mark = consumer.endOffsets(nodeStatus, askFor);
            markedAt = now;
            long toEnd = behind(consumer, nodeStatus, mark);
            return toEnd == 0 || previous == null ? toEnd : behind(consumer, nodeStatus, previous);
        } catch (WakeupException | InterruptException e) {
            throw e; // the instance is stopping
        } catch (KafkaException e) { // a timeout included: not known to be read up, so no verdict
            mark = null;
            return UNKNOWN;
        }
    }

    private long behind(Consumer<?, ?> consumer, List<TopicPartition> partitions, Map<TopicPartition, Long> ends) {
        long unread = 0;
        for (TopicPartition tp : partitions) {
            Long end = ends.get(tp);
            unread += end == null ? 0 : Math.max(0, end - consumer.position(tp, askFor));
        }
        return unread;
    }
}
