package dev.allot.scheduler;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.junit.jupiter.api.Test;

/** What the loop takes for "another instance is active now" among the producer's errors, which refer to each other. */
class FencedErrorTest {

    /** As the producer left them after a broker restart (chaos, 2026-12-06): a failure and the error state it caused. */
    static KafkaException circle(KafkaException failure) {
        KafkaException errorState = new KafkaException(
                "Cannot execute transactional method because we are in an error state", failure);
        failure.addSuppressed(errorState);
        return errorState;
    }

    @Test
    void givenErrorsThatSuppressEachOther_whenNoneIsAFence_thenNotFencedAndTheSearchEnds() {
        KafkaException failure = new KafkaException("Unexpected error in TxnOffsetCommitResponse: The server"
                + " experienced an unexpected error when processing the request.");
        circle(failure);

        assertThat(SchedulerLoop.fenced(new IllegalStateException("step failed", failure))).isFalse();
    }

    @Test
    void givenErrorsThatSuppressEachOther_whenOneIsAFence_thenFenced() {
        KafkaException failure = new KafkaException("commit failed");
        circle(failure).addSuppressed(new ProducerFencedException("There is a newer producer with the same"
                + " transactionalId"));

        assertThat(SchedulerLoop.fenced(new IllegalStateException("step failed", failure))).isTrue();
        assertThat(SchedulerLoop.fenced(new IllegalStateException("step failed", new KafkaException("timeout"))))
                .isFalse();
    }
}
