package dev.allot.scheduler;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.serialization.Serializer;
import org.jboss.logging.Logger;

/**
 * One step's records and the input offsets they answer, written in one transaction, riding out a slow or
 * briefly absent broker instead of giving the projection up. The projection has already applied the step, so
 * the transaction must land as it is; a rebuild from the log (tens of seconds on a busy cluster) is the last
 * resort, not the answer to every hiccup.
 *
 * <ol>
 *   <li>A commit or offsets write that does not finish within the producer's {@code max.block.ms} may still
 *       complete: the producer keeps the request going, so the commit is awaited again (the Kafka producer's
 *       documented way) until {@link #COMMIT_PATIENCE_MILLIS}; it cannot be aborted meanwhile.
 *   <li>An abortable error (a batch that ran out of delivery time, a {@code TRANSACTION_ABORTABLE} answer, a
 *       send that timed out on metadata) aborts the transaction, and the same records and offsets go again in a
 *       new one: aborted records are invisible to the read-committed readers, so the last copy is the only one
 *       anyone sees. A transient cause (a timeout: a broker restarting) is retried for
 *       {@link #COMMIT_PATIENCE_MILLIS} from the first failure, any other {@link #ATTEMPTS} times.
 *   <li>A fence (a newer active instance), an error the producer cannot abort, or attempts used up: thrown, and
 *       the loop stands by or rebuilds as before.
 * </ol>
 */
final class StepCommitter {

    private static final Logger LOG = Logger.getLogger(StepCommitter.class);
    /**
     * Transactions tried per step, when the failure is not transient, before the step is given up (the loop then
     * rebuilds from the log).
     */
    static final int ATTEMPTS = 3;
    /**
     * How long a commit that timed out is awaited again: twice the transaction timeout, after which the broker
     * has aborted the transaction itself.
     */
    static final long COMMIT_PATIENCE_MILLIS = 60_000;

    /** What the committer counts: a retry of each kind (for the loop's metrics and tests). */
    interface Retries {
        void retried(String kind);
    }

    private final Producer<String, byte[]> producer;
    private final Serializer<SpecificRecord> serializer;
    private final ConsumerGroupMetadata group;
    private final BooleanSupplier stopping;
    private final Retries retries;
    private final LongSupplier clock;

    StepCommitter(Producer<String, byte[]> producer, Serializer<SpecificRecord> serializer, ConsumerGroupMetadata group,
            BooleanSupplier stopping, Retries retries, LongSupplier clock) {
        this.producer = producer;
        this.serializer = serializer;
        this.group = group;
        this.stopping = stopping;
        this.retries = retries;
        this.clock = clock;
    }

    /**
     * Writes {@code out} and commits {@code offsets} (the group's, in the same transaction).
     *
     * @param afterSends run once, inside the first transaction after its records are sent (the loop's halt and
     *     freeze for tests); what it throws ends the step as it is, nothing aborted
     */
    void commit(List<Output> out, Map<TopicPartition, OffsetAndMetadata> offsets, Runnable afterSends) {
        // Serialised once, before any transaction: a registry that cannot be reached fails the step here, with
        // nothing begun to abort.
        List<ProducerRecord<String, byte[]>> records = new ArrayList<>(out.size());
        for (Output o : out) {
            records.add(new ProducerRecord<>(o.topic(), o.key(), serializer.serialize(o.topic(), o.value())));
        }
        long firstFailure = -1;
        for (int attempt = 1; ; attempt++) {
            try {
                once(records, offsets, attempt == 1 ? afterSends : null);
                return;
            } catch (AfterSendsThrew e) {
                throw e.thrown;
            } catch (KafkaException e) {
                long now = clock.getAsLong();
                firstFailure = firstFailure < 0 ? now : firstFailure;
                boolean again = transientFailure(e) ? now - firstFailure < COMMIT_PATIENCE_MILLIS : attempt < ATTEMPTS;
                if (SchedulerLoop.fenced(e) || e instanceof CommitOutcomeUnknown || !again || stopping.getAsBoolean()) {
                    throw e instanceof CommitOutcomeUnknown u ? u.timeout : e;
                }
                abort(e);
                retries.retried("transaction");
                LOG.warnf("step's transaction failed (%s); aborted, writing the same %d records again (attempt %d)",
                        causes(e), records.size(), attempt + 1);
            } catch (RuntimeException e) {
                abortQuietly(e);
                throw e;
            }
        }
    }

    private void once(List<ProducerRecord<String, byte[]>> records, Map<TopicPartition, OffsetAndMetadata> offsets,
            Runnable afterSends) {
        producer.beginTransaction();
        for (ProducerRecord<String, byte[]> r : records) {
            producer.send(r);
        }
        if (afterSends != null) {
            try {
                afterSends.run();
            } catch (RuntimeException e) {
                throw new AfterSendsThrew(e);
            }
        }
        if (!offsets.isEmpty()) {
            try {
                producer.sendOffsetsToTransaction(offsets, group);
            } catch (TimeoutException e) {
                // The offsets' request goes on in the producer, queued ahead of the commit's: the commit below
                // waits for it and fails if it fails.
                retries.retried("offsets-timeout");
                LOG.warnf("step's offsets not acknowledged within the producer's max.block.ms; committing (which "
                        + "waits for them): %s", e.getMessage());
            }
        }
        long began = clock.getAsLong();
        while (true) {
            try {
                producer.commitTransaction();
                return;
            } catch (TimeoutException e) {
                long waited = clock.getAsLong() - began;
                if (waited >= COMMIT_PATIENCE_MILLIS || stopping.getAsBoolean()) {
                    throw new CommitOutcomeUnknown(e);
                }
                retries.retried("commit-timeout");
                LOG.warnf("step's commit not acknowledged after %d ms; awaiting it again", waited);
            }
        }
    }

    /** Aborts after an abortable error; a timed-out abort is awaited again, like a commit. */
    private void abort(KafkaException cause) {
        long began = clock.getAsLong();
        while (true) {
            try {
                producer.abortTransaction();
                return;
            } catch (TimeoutException e) {
                if (clock.getAsLong() - began >= COMMIT_PATIENCE_MILLIS || stopping.getAsBoolean()) {
                    cause.addSuppressed(e);
                    throw cause;
                }
            } catch (RuntimeException e) {
                // Not abortable (a fatal error, a fence): the step is given up.
                cause.addSuppressed(e);
                throw cause;
            }
        }
    }

    private void abortQuietly(RuntimeException cause) {
        try {
            producer.abortTransaction();
        } catch (RuntimeException abort) {
            cause.addSuppressed(abort);
        }
    }

    /** A failure that time may mend: a timeout or another retriable error anywhere in the causes. */
    static boolean transientFailure(Throwable e) {
        for (Throwable c = e; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (c instanceof org.apache.kafka.common.errors.RetriableException) {
                return true;
            }
        }
        return false;
    }

    /** The error and its causes on one line ("the producer is in an error state" says little by itself). */
    static String causes(Throwable e) {
        StringBuilder line = new StringBuilder(e.toString());
        for (Throwable c = e.getCause(); c != null && c != c.getCause(); c = c.getCause()) {
            line.append(" <- ").append(c);
        }
        return line.toString();
    }

    /** What the test hook threw, carried past the retry handling untouched. */
    private static final class AfterSendsThrew extends RuntimeException {
        final RuntimeException thrown;

        AfterSendsThrew(RuntimeException thrown) {
            super(null, null, false, false);
            this.thrown = thrown;
        }
    }

    /** A commit still unacknowledged after the patience: it may have landed, so it can be neither aborted nor redone. */
    private static final class CommitOutcomeUnknown extends KafkaException {
        final TimeoutException timeout;

        CommitOutcomeUnknown(TimeoutException timeout) {
            super(timeout.getMessage(), timeout);
            this.timeout = timeout;
        }
    }
}
