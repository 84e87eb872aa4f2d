package dev.allot.schemas.catalogue;

import dev.allot.schemas.DeadLetter;
import java.nio.ByteBuffer;
import java.time.Instant;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * Builds {@link DeadLetter} records for {@link Topics#DEAD_LETTERS}: a consumer that cannot process a
 * record (malformed bytes, schema-invalid, violates a rule) publishes it here, raw, with the reason,
 * and goes on with the next one. Keyed by the source topic.
 */
public final class DeadLetters {

    private DeadLetters() {
    }

    public static DeadLetter of(String sourceTopic, int partition, long offset, byte[] key, byte[] value,
                                String reason, String consumer, Instant failedAt) {
        return DeadLetter.newBuilder()
                .setSourceTopic(sourceTopic)
                .setPartition(partition)
                .setOffset(offset)
                .setKey(key == null ? null : ByteBuffer.wrap(key))
                .setValue(value == null ? null : ByteBuffer.wrap(value))
                .setReason(reason == null || reason.isBlank() ? "unknown" : reason)
                .setConsumer(consumer)
                .setFailedAt(failedAt)
                .build();
    }

    /** The dead letter of a record read raw from Kafka: its topic, partition, offset, key and value as they were. */
    public static DeadLetter of(ConsumerRecord<byte[], byte[]> record, String reason, String consumer,
                                Instant failedAt) {
        return of(record.topic(), record.partition(), record.offset(), record.key(), record.value(), reason, consumer,
                failedAt);
    }

    /** A one-line reason from an exception chain, e.g. for a deserialisation failure. */
    public static String reasonOf(Throwable error) {
        StringBuilder reason = new StringBuilder();
        for (Throwable t = error; t != null; t = t.getCause()) {
            if (!reason.isEmpty()) {
                reason.append(" <- ");
            }
            reason.append(t.getClass().getSimpleName());
            if (t.getMessage() != null) {
                reason.append(": ").append(t.getMessage());
            }
            if (t.getCause() == t) {
                break;
            }
        }
        return reason.length() > 2000 ? reason.substring(0, 2000) : reason.toString();
    }
}
