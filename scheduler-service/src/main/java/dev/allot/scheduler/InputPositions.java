package dev.allot.scheduler;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/** Where the loop's input consumer stands: the group's committed offsets, seeking to them, the positions read to. */
final class InputPositions {

    private InputPositions() {
    }

    /** The consumer's position on every input partition: after the inputs applied so far. */
    static Map<TopicPartition, Long> of(KafkaConsumer<byte[], byte[]> consumer) {
        Map<TopicPartition, Long> positions = new HashMap<>();
        for (TopicPartition tp : consumer.assignment()) {
            positions.put(tp, consumer.position(tp));
        }
        return positions;
    }

    /** The group's committed offset of every input partition (null where none). */
    static Map<TopicPartition, OffsetAndMetadata> committed(KafkaConsumer<byte[], byte[]> consumer,
            Set<TopicPartition> partitions) {
        Map<TopicPartition, OffsetAndMetadata> committed = new HashMap<>(consumer.committed(partitions));
        partitions.forEach(tp -> committed.putIfAbsent(tp, null));
        return committed;
    }

    /** Every input partition from the committed offsets (from the beginning where none). */
    static void seek(KafkaConsumer<byte[], byte[]> consumer, Map<TopicPartition, OffsetAndMetadata> committed) {
        List<TopicPartition> partitions = new ArrayList<>(committed.keySet());
        List<TopicPartition> fromStart = new ArrayList<>();
        for (TopicPartition tp : partitions) {
            OffsetAndMetadata o = committed.get(tp);
            if (o == null) {
                fromStart.add(tp);
            } else {
                consumer.seek(tp, o.offset());
            }
        }
        if (!fromStart.isEmpty()) {
            // (an empty collection would mean every assigned partition: the whole log read again live)
            consumer.seekToBeginning(fromStart);
        }
    }
}
