package dev.allot.edge;

import dev.allot.schemas.DeadLetter;
import dev.allot.schemas.catalogue.Topics;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;

/**
 * The records one consumer has already dead-lettered, read back from {@code dead-letters}. A consumer that reads
 * its input again from the start at every launch (the budget-service's projection; the accounting-service's global
 * budgets store, restored through its intake) would otherwise write the same dead letters again each time: a
 * record is dead-lettered once. The registry must answer (the letters are Avro): {@link RegistryUnavailable}
 * otherwise, and the caller tries again later.
 */
public final class DeadLetterHistory {

    private final Set<String> sent;

    private DeadLetterHistory(Set<String> sent) {
        this.sent = sent;
    }

    /** Reads {@code dead-letters} to its current end and keeps the records {@code consumerName} sent there. */
    public static DeadLetterHistory read(KafkaClients clients, String consumerName, Duration timeout) {
        Set<String> sent = new HashSet<>();
        try (KafkaConsumer<byte[], byte[]> c = clients.consumer(consumerName + "-dead-letter-history", Map.of())) {
            List<TopicPartition> partitions = c.partitionsFor(Topics.DEAD_LETTERS.name(), timeout).stream()
                    .map(p -> new TopicPartition(p.topic(), p.partition())).toList();
            c.assign(partitions);
            c.seekToBeginning(partitions);
            Map<TopicPartition, Long> ends = c.endOffsets(partitions, timeout);
            long deadline = System.nanoTime() + timeout.toNanos();
            while (!ends.entrySet().stream().allMatch(e -> c.position(e.getKey()) >= e.getValue())) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("dead-letters not read to its end within " + timeout);
                }
                for (ConsumerRecord<byte[], byte[]> record : c.poll(Duration.ofMillis(200))) {
                    try {
                        DeadLetter letter = clients.reader().read(Topics.DEAD_LETTERS, record.value());
                        if (letter != null && consumerName.equals(letter.getConsumer())) {
                            sent.add(key(letter.getSourceTopic(), letter.getPartition(), letter.getOffset()));
                        }
                    } catch (InvalidRecord e) {
                        // not a dead letter of ours: nothing to remember
                    }
                }
            }
        }
        return new DeadLetterHistory(sent);
    }

    /** True when the record at this place was dead-lettered by this consumer before. */
    public boolean alreadySent(String topic, int partition, long offset) {
        return sent.contains(key(topic, partition, offset));
    }

    /** Remembers a dead letter written now. */
    public void sent(String topic, int partition, long offset) {
        sent.add(key(topic, partition, offset));
    }

    public int size() {
        return sent.size();
    }

    private static String key(String topic, int partition, long offset) {
        return topic + "/" + partition + "@" + offset;
    }
}
