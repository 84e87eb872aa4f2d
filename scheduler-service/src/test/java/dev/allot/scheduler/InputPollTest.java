package dev.allot.scheduler;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.schemas.catalogue.Topics;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A step's input: what reached the broker while the step before ran is taken into the next step by a second look,
 * after the records the consumer held; a quick step, a poll that waited, or an empty one gets no second look.
 */
class InputPollTest {

    static final TopicPartition REQUESTS = new TopicPartition(Topics.JOB_REQUESTS.name(), 0);
    static final long MS = 1_000_000;

    /** A consumer on a virtual clock: each poll takes {@code pollTakes} of it. */
    static final class Broker extends MockConsumer<byte[], byte[]> {
        long now;
        long pollTakes;
        int polls;
        long nextOffset;

        Broker() {
            super("earliest");
            assign(List.of(REQUESTS));
            updateBeginningOffsets(Map.of(REQUESTS, 0L));
        }

        @Override
        public synchronized ConsumerRecords<byte[], byte[]> poll(Duration timeout) {
            polls++;
            now += pollTakes;
            return super.poll(timeout);
        }

        /** A record the consumer holds already (fetched while the last step ran). */
        void held(String value) {
            addRecord(new ConsumerRecord<>(REQUESTS.topic(), 0, nextOffset++, null, value.getBytes()));
        }

        /** A record that reaches the broker at the {@code poll}-th poll from now (1: the next one). */
        void arrivesAtPoll(int poll, String value) {
            for (int i = 1; i < poll; i++) {
                schedulePollTask(() -> { });
            }
            schedulePollTask(() -> held(value));
        }
    }

    Broker broker;
    InputPoll input;

    @BeforeEach
    void givenALoopThatHasPolledOnce() {
        broker = new Broker();
        input = new InputPoll(broker, () -> broker.now);
        broker.held("first");
        assertThat(values(input.poll(Duration.ofMillis(100)))).containsExactly("first");
    }

    @Test
    void aRecordThatCameDuringALongStepIsReadInTheNextStepAfterTheHeldOnes() {
        broker.now += 30 * MS; // the step took 30 ms; meanwhile the consumer fetched "held", and "late" came after
        broker.held("held");
        broker.arrivesAtPoll(2, "late");

        List<ConsumerRecord<byte[], byte[]>> step = input.poll(Duration.ofMillis(100));

        assertThat(values(step)).containsExactly("held", "late");
        assertThat(step).extracting(ConsumerRecord::offset).containsExactly(1L, 2L);
        assertThat(broker.lastPollTimeout()).isEqualTo(InputPoll.SECOND_LOOK);
    }

    @Test
    void afterAQuickStepTheRecordsAreTakenAsTheyAre() {
        broker.now += MS / 2;
        broker.held("held");
        broker.arrivesAtPoll(2, "late");

        assertThat(values(input.poll(Duration.ofMillis(100)))).containsExactly("held");
        assertThat(broker.polls).isEqualTo(2);
        assertThat(values(input.poll(Duration.ofMillis(100)))).containsExactly("late"); // the next step has it
    }

    @Test
    void recordsAPollWaitedForAreFreshNoSecondLook() {
        broker.now += 30 * MS;
        broker.pollTakes = 10 * MS; // the poll waited for the broker's answer
        broker.arrivesAtPoll(1, "fresh");
        broker.arrivesAtPoll(1, "late"); // queued behind: the poll after

        assertThat(values(input.poll(Duration.ofMillis(100)))).containsExactly("fresh");
        assertThat(broker.polls).isEqualTo(2);
    }

    @Test
    void anEmptyPollIsNotLookedAtAgain() {
        broker.now += 30 * MS;
        broker.arrivesAtPoll(2, "late");

        assertThat(input.poll(Duration.ofMillis(100))).isEmpty();
        assertThat(broker.polls).isEqualTo(2);
    }

    private static List<String> values(List<ConsumerRecord<byte[], byte[]>> records) {
        return records.stream().map(r -> new String(r.value())).toList();
    }
}
