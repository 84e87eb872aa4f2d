package dev.allot.accounting.streams;

import dev.allot.edge.DeadLetterHistory;
import dev.allot.edge.KafkaClients;
import dev.allot.schemas.DeadLetter;
import dev.allot.schemas.catalogue.Topics;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.jboss.logging.Logger;

/**
 * Where {@link BudgetIntake} sends the dead letters of undecodable budget records: the global store has no output
 * topic, so they go through a producer of their own, on a thread of their own (the global thread never waits for
 * them). Once per record: the accounting-service's earlier letters are read back from {@code dead-letters} first
 * ({@link DeadLetterHistory}), since Kafka Streams runs the intake again over restored records. A letter that
 * cannot be written (the registry or the broker away) is tried again every second until it is acknowledged.
 */
public interface BudgetDeadLetters {

    void send(DeadLetter letter);

    /** Drops them (TopologyTestDriver tests that do not look). */
    BudgetDeadLetters NONE = letter -> {
    };

    /** Through Kafka, as the service runs. */
    static Kafka kafka(KafkaClients clients) {
        return new Kafka(clients);
    }

    final class Kafka implements BudgetDeadLetters, AutoCloseable {

        private static final Logger LOG = Logger.getLogger(BudgetDeadLetters.class);
        private static final Duration RETRY = Duration.ofSeconds(1);

        private final KafkaClients clients;
        private final ScheduledExecutorService worker = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "accounting-budget-dead-letters");
            t.setDaemon(true);
            return t;
        });
        private final java.util.concurrent.atomic.AtomicInteger decided = new java.util.concurrent.atomic.AtomicInteger();
        private final java.util.concurrent.atomic.AtomicInteger sentBefore = new java.util.concurrent.atomic.AtomicInteger();
        // both used on the worker thread only
        private DeadLetterHistory history;
        private KafkaProducer<String, DeadLetter> producer;

        private Kafka(KafkaClients clients) {
            this.clients = clients;
        }

        @Override
        public void send(DeadLetter letter) {
            submit(() -> attempt(letter, false, 1), 0);
        }

        private void attempt(DeadLetter letter, boolean checked, int attempt) {
            boolean known = checked;
            try {
                if (!known) {
                    if (history == null) {
                        history = DeadLetterHistory.read(clients, IntakeProcessor.CONSUMER, Duration.ofMinutes(2));
                    }
                    if (history.alreadySent(letter.getSourceTopic(), letter.getPartition(), letter.getOffset())) {
                        sentBefore.incrementAndGet();
                        decided.incrementAndGet();
                        return; // sent by an earlier run (the store was restored through the intake)
                    }
                    history.sent(letter.getSourceTopic(), letter.getPartition(), letter.getOffset());
                    decided.incrementAndGet();
                    known = true;
                }
                if (producer == null) {
                    producer = clients.eventProducer(IntakeProcessor.CONSUMER + "-budget-dead-letters", Map.of());
                }
                producer.send(new ProducerRecord<>(Topics.DEAD_LETTERS.name(), letter.getSourceTopic(), letter),
                        (metadata, error) -> {
                            if (error != null) {
                                retry(letter, true, attempt, error);
                            }
                        });
            } catch (RuntimeException e) {
                retry(letter, known, attempt, e);
            }
        }

        private void retry(DeadLetter letter, boolean checked, int attempt, Throwable error) {
            if (attempt == 1 || attempt % 60 == 0) {
                LOG.warnf("could not write the dead letter for %s-%d@%d (attempt %d): %s; trying again in %s",
                        letter.getSourceTopic(), letter.getPartition(), letter.getOffset(), attempt, error, RETRY);
            }
            submit(() -> attempt(letter, checked, attempt + 1), RETRY.toMillis());
        }

        private void submit(Runnable task, long delayMillis) {
            try {
                worker.schedule(task, delayMillis, TimeUnit.MILLISECONDS);
            } catch (RejectedExecutionException closed) {
                // shutting down: not in dead-letters, so the next run sends it
            }
        }

        /** Letters handed over and judged against the history so far (sent, or found sent before). */
        public int decided() {
            return decided.get();
        }

        /** Letters not sent because an earlier run (or instance) of this consumer had sent them. */
        public int sentBefore() {
            return sentBefore.get();
        }

        @Override
        public void close() {
            worker.shutdownNow();
            KafkaProducer<String, DeadLetter> p = producer;
            if (p != null) {
                p.close(Duration.ofSeconds(5));
            }
        }
    }
}
