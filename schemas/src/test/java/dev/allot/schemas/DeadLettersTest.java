package dev.allot.schemas;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.schemas.catalogue.DeadLetters;
import java.nio.ByteBuffer;
import java.time.Instant;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

class DeadLettersTest {

    @Test
    void givenARawRecord_whenDeadLettered_thenItKeepsWhereItCameFromAndItsBytes() {
        ConsumerRecord<byte[], byte[]> record = new ConsumerRecord<>("job-requests", 4, 99, "k".getBytes(),
                "not avro".getBytes());
        Instant at = Instant.ofEpochMilli(1_760_000_000_000L);

        DeadLetter letter = DeadLetters.of(record, "cannot deserialise: x", "budget-service", at);

        assertThat(letter.getSourceTopic()).isEqualTo("job-requests");
        assertThat(letter.getPartition()).isEqualTo(4);
        assertThat(letter.getOffset()).isEqualTo(99);
        assertThat(letter.getKey()).isEqualTo(ByteBuffer.wrap("k".getBytes()));
        assertThat(letter.getValue()).isEqualTo(ByteBuffer.wrap("not avro".getBytes()));
        assertThat(letter.getReason()).isEqualTo("cannot deserialise: x");
        assertThat(letter.getConsumer()).isEqualTo("budget-service");
        assertThat(letter.getFailedAt()).isEqualTo(at);
    }

    @Test
    void givenABlankReason_whenDeadLettered_thenTheReasonIsUnknown() {
        ConsumerRecord<byte[], byte[]> record = new ConsumerRecord<>("usage", 0, 1, null, null);

        DeadLetter letter = DeadLetters.of(record, " ", "node-agent", Instant.EPOCH);

        assertThat(letter.getReason()).isEqualTo("unknown");
        assertThat(letter.getKey()).isNull();
        assertThat(letter.getValue()).isNull();
    }
}
