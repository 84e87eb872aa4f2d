package dev.allot.budget.kafka;

import dev.allot.schemas.DeadLetter;
import dev.allot.schemas.catalogue.Topics;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.jboss.logging.Logger;

/**
 * Writes the projector's dead letters and keeps each one until Kafka has acknowledged it. The projector does not
 * wait (a flood of garbage would otherwise be read at the pace of one acknowledgement per record), and it never
 * reads the record again (it remembers it as sent), so a letter that could not be written (the registry down when
 * the DeadLetter schema was not known yet, the broker away longer than the producer's delivery timeout) is written
 * again after a pause, until it is in the log. A letter still pending when the service stops is not lost either:
 * the next launch does not find it in {@code dead-letters} (kafka-edge's {@code DeadLetterHistory}) and sends it then.
 */
final class DeadLetterOutbox implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(DeadLetterOutbox.class);
    static final Duration RETRY = Duration.ofSeconds(1);

    private final EventPublisher publisher;
    private final ScheduledExecutorService retries = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "budget-dead-letter-retry");
        t.setDaemon(true);
        return t;
    });

    DeadLetterOutbox(EventPublisher publisher) {
        this.publisher = publisher;
    }

    /** Sends the letter (keyed by its source topic) and sends it again until it is acknowledged. */
    void send(DeadLetter letter) {
        attempt(letter, 1);
    }

    private void attempt(DeadLetter letter, int attempt) {
        publisher.publish(Topics.DEAD_LETTERS, letter.getSourceTopic(), letter).whenComplete((ok, error) -> {
            if (error == null) {
                return;
            }
            if (attempt == 1 || attempt % 60 == 0) {
                LOG.warnf("could not write the dead letter for %s-%d@%d (attempt %d): %s; trying again in %s",
                        letter.getSourceTopic(), letter.getPartition(), letter.getOffset(), attempt,
                        EventPublisher.reason(error), RETRY);
            }
            try {
                retries.schedule(() -> attempt(letter, attempt + 1), RETRY.toMillis(), TimeUnit.MILLISECONDS);
            } catch (java.util.concurrent.RejectedExecutionException closed) {
                // shutting down: the next launch sends it (it is not in dead-letters)
            }
        });
    }

    @Override
    public void close() {
        retries.shutdownNow();
    }
}
