package dev.allot.scheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.allot.schemas.AccountDemand;
import dev.allot.schemas.catalogue.EventSerdes;
import dev.allot.schemas.catalogue.Topics;
import dev.allot.testsupport.RestartableInfrastructure;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A step's transaction against a real broker that goes away (stopped for real, this test's own) and comes back:
 * the step lands once, with its offsets, instead of the loop giving its projection up and rebuilding. The broker
 * is started again from inside the committer's first retry, so the outage provably spans a wait that timed out.
 */
class StepCommitterBrokerOutageTest {

    static RestartableInfrastructure infra;

    @BeforeAll
    static void start() {
        infra = RestartableInfrastructure.start();
    }

    @AfterAll
    static void stop() {
        if (infra != null) {
            infra.close();
        }
    }

    @Test
    void givenTheBrokerGoesAwayAsTheStepCommits_whenItComesBackDuringTheWait_thenTheCommitIsAwaited_notRedone() {
        Step step = new Step();
        List<String> retries = new ArrayList<>();
        // the broker stops once the records and offsets are acknowledged, just before the commit is asked for
        KafkaProducer<String, byte[]> producer = producer(Map.of(), true);

        committer(producer, step, retries, () -> infra.startBroker()).commit(step.out, step.offsets, () -> { });
        producer.close();

        assertThat(retries).as("the commit timed out at least once and was awaited again, nothing aborted")
                .isNotEmpty().containsOnly("commit-timeout");
        step.assertLandedOnce();
    }

    @Test
    void givenTheBrokerIsDownAcrossTheWholeStep_whenItComesBack_thenTheStepLandsOnce() {
        Step step = new Step();
        KafkaProducer<String, byte[]> producer = producer(Map.of(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 120_000), false);
        List<String> retries = new ArrayList<>();

        infra.stopBroker();
        committer(producer, step, retries, () -> infra.startBroker()).commit(step.out, step.offsets, () -> { });
        producer.close();

        // whether the producer waited it out or made the transaction abortable (and the step was written again),
        // readers see each record once
        assertThat(retries).as("the outage was noticed").isNotEmpty();
        step.assertLandedOnce();
    }

    @Test
    void givenARecordTheProducerCanNeverWrite_whenTheStepCommits_thenEachAttemptIsAborted_andNothingIsVisible() {
        Step step = new Step();
        // larger than the producer's largest request: refused at every send, the transaction left abortable
        KafkaProducer<String, byte[]> producer = producer(Map.of(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, 16), false);
        List<String> retries = new ArrayList<>();

        assertThatThrownBy(() -> committer(producer, step, retries, () -> { }).commit(step.out, step.offsets, () -> { }))
                .satisfies(e -> assertThat(StepCommitter.causes(e)).contains("RecordTooLargeException"));
        producer.close();

        assertThat(retries).containsExactly(java.util.Collections.nCopies(StepCommitter.ATTEMPTS - 1, "transaction")
                .toArray(String[]::new));
        assertThat(step.committedKeys()).isEmpty();
        try (Admin admin = infra.clients().admin()) {
            assertThat(admin.listConsumerGroupOffsets(step.group).partitionsToOffsetAndMetadata().get())
                    .doesNotContainKey(step.input);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    /** Two demand records under keys of the test's own, and an offset for a group of its own. */
    static final class Step {
        final String run = UUID.randomUUID().toString().substring(0, 8);
        final List<Output> out = List.of(demand(run + "/team-a"), demand(run + "/team-b"));
        final String group = "step-committer-" + run;
        final TopicPartition input = new TopicPartition(Topics.JOB_REQUESTS.name(), 0);
        final Map<TopicPartition, OffsetAndMetadata> offsets = Map.of(input, new OffsetAndMetadata(7));

        static Output demand(String account) {
            return new Output(Topics.ACCOUNT_DEMAND.name(), account, new AccountDemand(account, "outage",
                    Instant.ofEpochSecond(100), Instant.ofEpochSecond(160), 3.0, 1.0, 2.0));
        }

        /** Read-committed readers see each record once, and the group's offset is committed. */
        void assertLandedOnce() {
            assertThat(committedKeys()).containsExactlyInAnyOrder(run + "/team-a", run + "/team-b");
            try (Admin admin = infra.clients().admin()) {
                await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(admin
                        .listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get())
                        .containsEntry(input, new OffsetAndMetadata(7)));
            }
        }

        List<String> committedKeys() {
            try (KafkaConsumer<byte[], byte[]> consumer = infra.clients().consumer("step-committer-check-" + run,
                    Map.of(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed"))) {
                List<TopicPartition> partitions = consumer.partitionsFor(Topics.ACCOUNT_DEMAND.name()).stream()
                        .map(p -> new TopicPartition(p.topic(), p.partition())).toList();
                consumer.assign(partitions);
                consumer.seekToBeginning(partitions);
                Map<TopicPartition, Long> ends = consumer.endOffsets(partitions);
                List<String> keys = new ArrayList<>();
                await().atMost(Duration.ofSeconds(30)).until(() -> {
                    for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                        String key = new String(r.key(), java.nio.charset.StandardCharsets.UTF_8);
                        if (key.startsWith(run)) {
                            keys.add(key);
                        }
                    }
                    return ends.entrySet().stream().allMatch(e -> consumer.position(e.getKey()) >= e.getValue());
                });
                return keys;
            }
        }
    }

    /**
     * A scheduler-like transactional producer, with short waits so that an outage outlasts them; with
     * {@code stopBeforeCommit}, the first commit stops the broker first (its records and offsets acknowledged).
     */
    static KafkaProducer<String, byte[]> producer(Map<String, Object> extra, boolean stopBeforeCommit) {
        Map<String, Object> config = infra.clients().producerConfig("step-committer-test");
        config.putAll(Map.of(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "step-committer-" + UUID.randomUUID(),
                ProducerConfig.LINGER_MS_CONFIG, 0, ProducerConfig.MAX_BLOCK_MS_CONFIG, 1_000,
                ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 1_000, ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, 60_000));
        config.putAll(extra);
        KafkaProducer<String, byte[]> producer = new KafkaProducer<>(config, new StringSerializer(),
                new ByteArraySerializer()) {
            boolean stopped;

            @Override
            public void commitTransaction() {
                if (stopBeforeCommit && !stopped) {
                    stopped = true;
                    flush();
                    infra.stopBroker();
                }
                super.commitTransaction();
            }
        };
        producer.initTransactions();
        producer.partitionsFor(Topics.ACCOUNT_DEMAND.name()); // metadata known before the broker goes away
        return producer;
    }

    /** The committer, whose first retry (of any kind) runs {@code onFirstRetry}: the broker's return. */
    static StepCommitter committer(KafkaProducer<String, byte[]> producer, Step step, List<String> retries,
            Runnable onFirstRetry) {
        return new StepCommitter(producer, EventSerdes.valueSerializer(infra.registryUrl()),
                new ConsumerGroupMetadata(step.group), () -> false, kind -> {
                    retries.add(kind);
                    if (retries.size() == 1) {
                        onFirstRetry.run();
                    }
                }, System::currentTimeMillis);
    }
}
