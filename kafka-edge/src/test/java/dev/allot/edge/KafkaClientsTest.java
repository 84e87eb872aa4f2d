package dev.allot.edge;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.junit.jupiter.api.Test;

/** The defaults every service's clients share, and that a service's overrides win. */
class KafkaClientsTest {

    private final KafkaClients kafka = new KafkaClients("127.0.0.1:9092", "http://127.0.0.1:8080");

    @Test
    void givenAConsumer_whenConfigured_thenRawBytesReadCommittedNoAutoCommitFromTheEarliest() {
        Map<String, Object> config = kafka.consumerConfig("svc");

        assertThat(config).containsEntry(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:9092")
                .containsEntry(ConsumerConfig.CLIENT_ID_CONFIG, "svc")
                .containsEntry(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed")
                .containsEntry(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false)
                .containsEntry(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest")
                .doesNotContainKey(ConsumerConfig.GROUP_ID_CONFIG);
    }

    @Test
    void givenAProducer_whenConfigured_thenIdempotentAcksAll_andTransactionalOnlyWhenAsked() {
        Map<String, Object> config = kafka.producerConfig("svc");

        assertThat(config).containsEntry(ProducerConfig.ACKS_CONFIG, "all")
                .containsEntry(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true)
                .containsEntry(ProducerConfig.LINGER_MS_CONFIG, 1)
                .containsEntry(ProducerConfig.CLIENT_ID_CONFIG, "svc")
                .doesNotContainKey(ProducerConfig.TRANSACTIONAL_ID_CONFIG);
    }

    @Test
    void givenATransactionalProducer_whenConfigured_thenItsIdAndAShortRetry_andOverridesWin() {
        Map<String, Object> config = kafka.transactionalProducerConfig("svc", "svc-tx",
                Map.of(ProducerConfig.LINGER_MS_CONFIG, 0));

        // back-to-back transactions meet CONCURRENT_TRANSACTIONS; Kafka's 100 ms default made every tenth commit wait it
        assertThat(config).containsEntry(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "svc-tx")
                .containsEntry(ProducerConfig.RETRY_BACKOFF_MS_CONFIG, 5)
                .containsEntry(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true)
                .containsEntry(ProducerConfig.LINGER_MS_CONFIG, 0);
    }

    @Test
    void givenStreams_whenConfigured_thenExactlyOnceFromTheEarliest_andOverridesWin() {
        Properties config = kafka.streamsConfig("app", Map.of("num.stream.threads", 2,
                "consumer.auto.offset.reset", "latest"));

        assertThat(config).containsEntry("application.id", "app")
                .containsEntry("bootstrap.servers", "127.0.0.1:9092")
                .containsEntry("processing.guarantee", "exactly_once_v2")
                .containsEntry("num.stream.threads", 2)
                .containsEntry("consumer.auto.offset.reset", "latest");
    }

    @Test
    void givenTheRegistry_whenConfigured_thenContentIdsInTheConfluentFrameWithoutHeaders() {
        assertThat(kafka.registryConfig())
                .containsEntry("apicurio.registry.url", "http://127.0.0.1:8080/apis/registry/v3")
                .containsEntry("apicurio.registry.use-id", "contentId")
                .containsEntry("apicurio.registry.headers.enabled", false);
        assertThat(kafka.adminConfig()).containsEntry("bootstrap.servers", "127.0.0.1:9092");
    }
}
