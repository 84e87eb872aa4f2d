package dev.allot.scheduler;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;

/**
 * Takes one step's input records from the consumer. The consumer fetches ahead: while a step runs, the fetch it sent
 * is answered with what the broker had then, and that answer waits in the consumer; what reaches the broker later
 * waits for the next fetch, which only the next poll sends. Read once, a record that arrived while a step ran is
 * applied a step later than it could be: in the peer benchmark's burst a submission made during a 31 ms step was
 * accepted 42 ms after it was sent, while one step was applying records that had waited in the consumer. So when the
 * poll hands over records at once after a step that took a while, one short poll more takes in what came meanwhile.
 * After a quick step (idle, heartbeats) or a poll that had to wait for its records, they are fresh: no second look.
 */
final class InputPoll {

    /** A step (or a poll) shorter than this: the records are fresh, a second look is not worth its wait. */
    static final long LONG_NANOS = 2_000_000;
    /** How long the second look waits for the broker's answer (on loopback it comes in well under a millisecond). */
    static final Duration SECOND_LOOK = Duration.ofMillis(3);

    private final Consumer<byte[], byte[]> consumer;
    private final LongSupplier nanoTime;
    private long returnedAt = Long.MIN_VALUE; // when the last poll handed its records over

    InputPoll(Consumer<byte[], byte[]> consumer, LongSupplier nanoTime) {
        this.consumer = consumer;
        this.nanoTime = nanoTime;
    }

    /** The records of one step, in the order each partition has them; waits at most {@code wait} for a first one. */
    List<ConsumerRecord<byte[], byte[]>> poll(Duration wait) {
        long calledAt = nanoTime.getAsLong();
        ConsumerRecords<byte[], byte[]> first = consumer.poll(wait);
        long polledAt = nanoTime.getAsLong();
        List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>(first.count());
        first.forEach(records::add);
        boolean afterLongStep = returnedAt != Long.MIN_VALUE && calledAt - returnedAt >= LONG_NANOS;
        boolean handedOverAtOnce = polledAt - calledAt < LONG_NANOS;
        if (!records.isEmpty() && afterLongStep && handedOverAtOnce) {
            consumer.poll(SECOND_LOOK).forEach(records::add); // after the first's: a partition's order is kept
        }
        returnedAt = nanoTime.getAsLong();
        return records;
    }
}
