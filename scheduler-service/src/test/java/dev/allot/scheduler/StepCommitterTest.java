package dev.allot.scheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.allot.schemas.AccountDemand;
import dev.allot.schemas.catalogue.Topics;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.TransactionAbortableException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/**
 * How a step's transaction rides out a slow broker, against Kafka's {@link MockProducer} scripted to fail (the
 * same paths against a real broker that is stopped and started: {@link StepCommitterBrokerOutageTest}).
 */
class StepCommitterTest {

    static final TopicPartition INPUT = new TopicPartition(Topics.JOB_REQUESTS.name(), 0);
    static final Map<TopicPartition, OffsetAndMetadata> OFFSETS = Map.of(INPUT, new OffsetAndMetadata(42));
    static final String GROUP = "allot-scheduler-unit";

    /** A producer whose operations fail as scripted, then behave: each list is consumed one failure per call. */
    static final class ScriptedProducer extends MockProducer<String, byte[]> {
        final List<RuntimeException> commitFailures = new ArrayList<>();
        final List<RuntimeException> sendFailures = new ArrayList<>();
        final List<RuntimeException> offsetFailures = new ArrayList<>();
        final List<RuntimeException> abortFailures = new ArrayList<>();
        int aborts;
        int begins;

        ScriptedProducer() {
            super(true, null, new StringSerializer(), new ByteArraySerializer());
            initTransactions();
        }

        @Override
        public void beginTransaction() {
            begins++;
            super.beginTransaction();
        }

        @Override
        public synchronized java.util.concurrent.Future<org.apache.kafka.clients.producer.RecordMetadata> send(
                ProducerRecord<String, byte[]> record) {
            if (!sendFailures.isEmpty()) {
                throw sendFailures.removeFirst();
            }
            return super.send(record);
        }

        @Override
        public void sendOffsetsToTransaction(Map<TopicPartition, OffsetAndMetadata> offsets, ConsumerGroupMetadata group) {
            super.sendOffsetsToTransaction(offsets, group); // the request goes on even when the wait times out
            if (!offsetFailures.isEmpty()) {
                throw offsetFailures.removeFirst();
            }
        }

        @Override
        public void commitTransaction() {
            if (!commitFailures.isEmpty()) {
                throw commitFailures.removeFirst();
            }
            super.commitTransaction();
        }

        @Override
        public void abortTransaction() {
            aborts++;
            if (!abortFailures.isEmpty()) {
                throw abortFailures.removeFirst();
            }
            super.abortTransaction();
        }
    }

    final ScriptedProducer producer = new ScriptedProducer();
    final List<String> retries = new ArrayList<>();
    final AtomicLong clock = new AtomicLong(1_000);
    final AtomicInteger serialised = new AtomicInteger();
    final Serializer<SpecificRecord> serializer = (topic, value) -> {
        serialised.incrementAndGet();
        return value.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8);
    };
    final StepCommitter committer = new StepCommitter(producer, serializer, new ConsumerGroupMetadata(GROUP),
            () -> false, retries::add, clock::get);
    final List<Output> out = List.of(sample("team-a"), sample("team-b"));

    static Output sample(String account) {
        return new Output(Topics.ACCOUNT_DEMAND.name(), account,
                new AccountDemand(account, "unit", Instant.ofEpochSecond(100), Instant.ofEpochSecond(160), 3.0, 1.0, 2.0));
    }

    @Test
    void givenTheBrokerAnswers_whenAStepCommits_thenItsRecordsAndOffsetsLandInOneTransaction() {
        committer.commit(out, OFFSETS, () -> { });

        assertThat(producer.commitCount()).isEqualTo(1);
        assertThat(producer.history()).extracting(ProducerRecord::key).containsExactly("team-a", "team-b");
        assertThat(producer.consumerGroupOffsetsHistory()).containsExactly(Map.of(GROUP, OFFSETS));
        assertThat(retries).isEmpty();
    }

    @Test
    void givenTheCommitIsNotAcknowledgedInTime_whenItCompletesLater_thenItIsAwaitedAgain_notAbortedNorRedone() {
        producer.commitFailures.add(new TimeoutException("awaiting EndTxn"));
        producer.commitFailures.add(new TimeoutException("awaiting EndTxn"));

        committer.commit(out, OFFSETS, () -> { });

        assertThat(producer.commitCount()).isEqualTo(1);
        assertThat(producer.begins).isEqualTo(1);
        assertThat(producer.aborts).isZero();
        assertThat(producer.history()).hasSize(2);
        assertThat(retries).containsExactly("commit-timeout", "commit-timeout");
    }

    @Test
    void givenTheOffsetsAreNotAcknowledgedInTime_whenTheStepCommits_thenTheCommitCarriesThem() {
        producer.offsetFailures.add(new TimeoutException("awaiting TxnOffsetCommitHandler"));

        committer.commit(out, OFFSETS, () -> { });

        assertThat(producer.commitCount()).isEqualTo(1);
        assertThat(producer.consumerGroupOffsetsHistory()).containsExactly(Map.of(GROUP, OFFSETS));
        assertThat(producer.aborts).isZero();
        assertThat(retries).containsExactly("offsets-timeout");
    }

    @Test
    void givenAnAbortableError_whenTheStepCommits_thenTheTransactionIsAbortedAndTheSameRecordsGoAgainOnce() {
        producer.commitFailures.add(new TransactionAbortableException("TRANSACTION_ABORTABLE"));
        AtomicInteger hookRuns = new AtomicInteger();

        committer.commit(out, OFFSETS, hookRuns::incrementAndGet);

        assertThat(producer.aborts).isEqualTo(1);
        assertThat(producer.begins).isEqualTo(2);
        assertThat(producer.commitCount()).isEqualTo(1);
        // the aborted copy is gone: each record is written once, serialised once
        assertThat(producer.history()).extracting(ProducerRecord::key).containsExactly("team-a", "team-b");
        assertThat(serialised).hasValue(2);
        assertThat(producer.consumerGroupOffsetsHistory()).containsExactly(Map.of(GROUP, OFFSETS));
        assertThat(hookRuns).as("the test hook runs in the first transaction only").hasValue(1);
        assertThat(retries).containsExactly("transaction");
    }

    @Test
    void givenASendTimesOutOnMetadata_whenTheStepCommits_thenItIsAbortedAndWrittenAgain() {
        producer.sendFailures.add(new TimeoutException("Topic job-events not present in metadata after 10000 ms"));

        committer.commit(out, OFFSETS, () -> { });

        assertThat(producer.aborts).isEqualTo(1);
        assertThat(producer.history()).extracting(ProducerRecord::key).containsExactly("team-a", "team-b");
        assertThat(retries).containsExactly("transaction");
    }

    @Test
    void givenEveryAttemptFailsAbortably_whenTheStepCommits_thenItGivesUpAfterItsAttempts_withNothingWritten() {
        for (int i = 0; i < StepCommitter.ATTEMPTS + 2; i++) {
            producer.commitFailures.add(new KafkaException("The client hasn't received acknowledgment for some "
                    + "previously sent messages and can no longer retry them. It is safe to abort the transaction"));
        }

        assertThatThrownBy(() -> committer.commit(out, OFFSETS, () -> { })).hasMessageContaining("can no longer retry");

        assertThat(producer.begins).isEqualTo(StepCommitter.ATTEMPTS);
        assertThat(producer.aborts).isEqualTo(StepCommitter.ATTEMPTS - 1);
        assertThat(producer.commitCount()).isZero();
        assertThat(producer.history()).isEmpty();
    }

    @Test
    void givenATransientFailureOutlastsTheAttempts_whenItMendsWithinThePatience_thenTheStepStillLands() {
        // a broker restarting: each send times out on metadata, five times in a row (one second apart)
        for (int i = 0; i < StepCommitter.ATTEMPTS + 2; i++) {
            producer.sendFailures.add(new TimeoutException("Topic queue-status not present in metadata after 10000 ms"));
        }
        StepCommitter secondApart = new StepCommitter(producer, serializer, new ConsumerGroupMetadata(GROUP), () -> false,
                retries::add, () -> clock.addAndGet(1_000));

        secondApart.commit(out, OFFSETS, () -> { });

        assertThat(producer.begins).isEqualTo(StepCommitter.ATTEMPTS + 3);
        assertThat(producer.commitCount()).isEqualTo(1);
        assertThat(producer.history()).extracting(ProducerRecord::key).containsExactly("team-a", "team-b");
    }

    @Test
    void givenATransientFailureOutlastsThePatience_whenTheStepCommits_thenItIsGivenUp() {
        for (int i = 0; i < 20; i++) {
            producer.sendFailures.add(new TimeoutException("Topic queue-status not present in metadata after 10000 ms"));
        }
        StepCommitter slowClock = new StepCommitter(producer, serializer, new ConsumerGroupMetadata(GROUP), () -> false,
                retries::add, () -> clock.addAndGet(15_000));

        assertThatThrownBy(() -> slowClock.commit(out, OFFSETS, () -> { })).isInstanceOf(TimeoutException.class);

        // the clock moves 15 s at every reading (failures, aborts): past the patience within a few attempts
        assertThat(producer.begins).isBetween(2, 5);
        assertThat(producer.sendFailures).as("given up long before the failures ran out").hasSizeGreaterThan(10);
        assertThat(producer.commitCount()).isZero();
        assertThat(producer.history()).isEmpty();
    }

    @Test
    void givenANewerInstanceFencedThisOne_whenTheStepCommits_thenTheFenceIsThrownAtOnce_withoutRetry() {
        producer.commitFailures.add(new ProducerFencedException("fenced by epoch 5"));

        assertThatThrownBy(() -> committer.commit(out, OFFSETS, () -> { })).isInstanceOf(ProducerFencedException.class);

        assertThat(producer.begins).isEqualTo(1);
        assertThat(producer.aborts).isZero();
        assertThat(retries).isEmpty();
    }

    @Test
    void givenTheCommitStaysUnacknowledgedPastThePatience_whenTheStepCommits_thenTheTimeoutIsThrown_andNothingIsAborted() {
        for (int i = 0; i < 10; i++) {
            producer.commitFailures.add(new TimeoutException("awaiting EndTxn"));
        }
        StepCommitter slowClock = new StepCommitter(producer, serializer, new ConsumerGroupMetadata(GROUP), () -> false,
                retries::add, () -> clock.addAndGet(StepCommitter.COMMIT_PATIENCE_MILLIS / 3));

        assertThatThrownBy(() -> slowClock.commit(out, OFFSETS, () -> { })).isInstanceOf(TimeoutException.class);

        // a commit that may have landed can be neither aborted nor written again: the loop rebuilds from the log
        assertThat(producer.aborts).isZero();
        assertThat(producer.begins).isEqualTo(1);
        assertThat(retries).containsOnly("commit-timeout").hasSizeBetween(1, 3);
    }

    @Test
    void givenTheAbortFailsFatally_whenTheStepCommits_thenTheFirstErrorIsThrown_withTheAbortsAttached() {
        producer.commitFailures.add(new TransactionAbortableException("TRANSACTION_ABORTABLE"));
        producer.abortFailures.add(new KafkaException("Cannot execute transactional method because we are in an error state"));

        assertThatThrownBy(() -> committer.commit(out, OFFSETS, () -> { }))
                .isInstanceOf(TransactionAbortableException.class)
                .satisfies(e -> assertThat(e.getSuppressed()).hasSize(1));

        assertThat(producer.begins).isEqualTo(1);
        assertThat(retries).isEmpty();
    }

    @Test
    void givenTheTestHookThrows_whenTheStepCommits_thenWhatItThrewEndsTheStep_withNothingAborted() {
        IllegalStateException halted = new IllegalStateException("halted");

        assertThatThrownBy(() -> committer.commit(out, OFFSETS, () -> {
            throw halted;
        })).isSameAs(halted);

        assertThat(producer.aborts).isZero();
        assertThat(producer.transactionInFlight()).as("left open, as a crash leaves it").isTrue();
    }
}
