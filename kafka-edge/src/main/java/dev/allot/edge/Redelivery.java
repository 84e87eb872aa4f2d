package dev.allot.edge;

import java.util.HashSet;
import java.util.Set;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.TopicPartition;

/**
 * How a poll loop retries after {@link RegistryUnavailable}: the record that could not be read is not
 * skipped, it is delivered again by the next poll, and so is every record of the batch after it.
 */
public final class Redelivery {

    private Redelivery() {
    }

    /**
     * Seeks every partition of {@code batch} back to its first record not processed yet, for a loop that
     * processed the batch in its iteration order (partition by partition) and stopped at {@code failed}:
     * partitions before it are done, its own restarts at it, later ones at their first record.
     */
    public static void seekBack(Consumer<?, ?> consumer, ConsumerRecords<?, ?> batch, ConsumerRecord<?, ?> failed) {
        Set<TopicPartition> settled = new HashSet<>();
        boolean reached = false;
        for (ConsumerRecord<?, ?> record : batch) {
            TopicPartition partition = new TopicPartition(record.topic(), record.partition());
            if (record == failed) {
                reached = true;
                consumer.seek(partition, record.offset());
                settled.add(partition);
            } else if (settled.add(partition) && reached) {
                consumer.seek(partition, record.offset());
            }
        }
    }
}
