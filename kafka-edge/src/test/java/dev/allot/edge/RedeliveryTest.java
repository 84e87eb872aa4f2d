package dev.allot.edge;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class RedeliveryTest {

    private static final TopicPartition P0 = new TopicPartition("t", 0);
    private static final TopicPartition P1 = new TopicPartition("t", 1);
    private static final TopicPartition P2 = new TopicPartition("t", 2);

    @Test
    void givenABatchStoppedMidPartition_whenSeekBack_thenThatPartitionRestartsAtTheFailedRecordAndLaterOnesAtTheirFirst() {
        MockConsumer<byte[], byte[]> consumer = new MockConsumer<>("earliest");
        consumer.assign(List.of(P0, P1, P2));
        ConsumerRecord<byte[], byte[]> p0a = record(P0, 10);
        ConsumerRecord<byte[], byte[]> p1a = record(P1, 20);
        ConsumerRecord<byte[], byte[]> p1b = record(P1, 21);
        ConsumerRecord<byte[], byte[]> p2a = record(P2, 30);
        Map<TopicPartition, List<ConsumerRecord<byte[], byte[]>>> byPartition = new LinkedHashMap<>();
        byPartition.put(P0, List.of(p0a));
        byPartition.put(P1, List.of(p1a, p1b));
        byPartition.put(P2, List.of(p2a));
        ConsumerRecords<byte[], byte[]> batch = new ConsumerRecords<>(byPartition, Map.of());
        consumer.seek(P0, 11);
        consumer.seek(P1, 22);
        consumer.seek(P2, 31); // where a poll of this batch leaves the consumer

        Redelivery.seekBack(consumer, batch, p1b);

        assertThat(consumer.position(P0)).as("processed before the failure").isEqualTo(11);
        assertThat(consumer.position(P1)).as("the failed record again").isEqualTo(21);
        assertThat(consumer.position(P2)).as("not reached").isEqualTo(30);
    }

    private static ConsumerRecord<byte[], byte[]> record(TopicPartition tp, long offset) {
        return new ConsumerRecord<>(tp.topic(), tp.partition(), offset, new byte[0], new byte[0]);
    }
}
