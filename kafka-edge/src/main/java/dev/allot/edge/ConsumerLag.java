package dev.allot.edge;

import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.common.TopicPartition;

/**
 * Records a consumer is behind the end of its partitions, summed: every service exports it as
 * {@code allot_consumer_lag_records{consumer}} so that one alert covers them all. Measured on the
 * polling thread (a Kafka consumer is not thread-safe) from the lag the last fetch reported, so it
 * costs no request; read from any thread.
 */
public final class ConsumerLag {

    private final AtomicLong records = new AtomicLong();

    /** Sums {@link Consumer#currentLag} over the assignment; partitions not fetched yet count as 0. */
    public void measure(Consumer<?, ?> consumer) {
        long sum = 0;
        for (TopicPartition tp : consumer.assignment()) {
            OptionalLong lag = consumer.currentLag(tp);
            if (lag.isPresent()) {
                sum += lag.getAsLong();
            }
        }
        records.set(sum);
    }

    public long records() {
        return records.get();
    }
}
