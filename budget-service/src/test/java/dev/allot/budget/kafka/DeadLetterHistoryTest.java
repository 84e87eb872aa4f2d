package dev.allot.budget.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.edge.DeadLetterHistory;
import dev.allot.schemas.DeadLetter;
import dev.allot.schemas.catalogue.DeadLetters;
import dev.allot.schemas.catalogue.Topics;
import dev.allot.testsupport.AllotInfra;
import dev.allot.testsupport.AllotInfrastructure;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

/** kafka-edge's DeadLetterHistory, as the budget-service uses it: a restarted budget-service learns from {@code dead-letters} which records it dead-lettered before. */
@AllotInfra
class DeadLetterHistoryTest {

    @Test
    void givenDeadLettersOfTwoConsumersAndGarbage_whenRead_thenOnlyThisConsumersPlacesAreKnown(
            AllotInfrastructure infra) throws Exception {
        String me = "budget-service-" + UUID.randomUUID();
        String other = "other-" + UUID.randomUUID();
        try (KafkaProducer<String, DeadLetter> producer = infra.producer()) {
            producer.send(letter(me, 0, 7)).get();
            producer.send(letter(me, 1, 9)).get();
            producer.send(letter(other, 0, 8)).get();
        }
        try (KafkaProducer<byte[], byte[]> raw = new KafkaProducer<>(Map.of("bootstrap.servers",
                infra.bootstrapServers()), new ByteArraySerializer(), new ByteArraySerializer())) {
            raw.send(new ProducerRecord<>(Topics.DEAD_LETTERS.name(), "garbage".getBytes(StandardCharsets.UTF_8)))
                    .get();
        }

        DeadLetterHistory history = DeadLetterHistory.read(infra.clients(), me, Duration.ofSeconds(30));

        assertThat(history.alreadySent(Topics.JOB_REQUESTS.name(), 0, 7)).isTrue();
        assertThat(history.alreadySent(Topics.JOB_REQUESTS.name(), 1, 9)).isTrue();
        assertThat(history.alreadySent(Topics.JOB_REQUESTS.name(), 0, 8)).as("another consumer's").isFalse();
        assertThat(history.alreadySent(Topics.BUDGETS.name(), 0, 7)).as("another topic").isFalse();
        assertThat(history.size()).isEqualTo(2);
    }

    @Test
    void givenAHistory_whenADeadLetterIsSentNow_thenItIsKnownToo(AllotInfrastructure infra) {
        DeadLetterHistory history = DeadLetterHistory.read(infra.clients(), "fresh-" + UUID.randomUUID(),
                Duration.ofSeconds(30));
        assertThat(history.size()).isZero();

        history.sent(Topics.QUEUE_STATUS.name(), 0, 3);

        assertThat(history.alreadySent(Topics.QUEUE_STATUS.name(), 0, 3)).isTrue();
    }

    private static ProducerRecord<String, DeadLetter> letter(String consumer, int partition, long offset) {
        return new ProducerRecord<>(Topics.DEAD_LETTERS.name(), Topics.JOB_REQUESTS.name(),
                DeadLetters.of(Topics.JOB_REQUESTS.name(), partition, offset, null, new byte[] {1}, "test", consumer,
                        Instant.now()));
    }
}
