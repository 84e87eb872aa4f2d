package dev.allot.budget.kafka;

import dev.allot.schemas.catalogue.Topic;
import io.quarkus.runtime.ShutdownEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;

/**
 * Writes events to catalogue topics through the registry (Confluent wire format), with the edge's event
 * producer (idempotent, acks=all): a write is acknowledged to the caller only once the broker has it.
 *
 * <p>Bounded by {@code allot.budget.write-timeout}: {@code send} blocks at most that long for the broker's metadata
 * ({@code max.block.ms}; Kafka's default is 60 s), and the producer gives a record up once that time has passed
 * since it was handed over ({@code delivery.timeout.ms}): a write answered 503 because the broker did not
 * acknowledge it in time is not written later behind the caller's back when the broker returns.
 */
@ApplicationScoped
public class EventPublisher {

    @Inject
    KafkaSettings settings;

    private volatile KafkaProducer<String, SpecificRecord> producer;

    /** Sends and completes once the broker acknowledged the record (or failed). */
    public <V extends SpecificRecord> CompletableFuture<RecordMetadata> publish(Topic<String, V> topic, String key,
                                                                               V value) {
        CompletableFuture<RecordMetadata> acked = new CompletableFuture<>();
        try {
            producer().send(new ProducerRecord<>(topic.name(), key, value), (metadata, error) -> {
                if (error != null) {
                    acked.completeExceptionally(error);
                } else {
                    acked.complete(metadata);
                }
            });
        } catch (RuntimeException e) {
            acked.completeExceptionally(e);
        }
        return acked;
    }

    /** Why a write was not acknowledged, in a line: the cause Kafka gave, not the wrappers around it. */
    public static String reason(Throwable error) {
        Throwable cause = error;
        while ((cause instanceof java.util.concurrent.ExecutionException
                || cause instanceof java.util.concurrent.CompletionException) && cause.getCause() != null) {
            cause = cause.getCause();
        }
        if (cause instanceof java.util.concurrent.TimeoutException) {
            return "no acknowledgement in time";
        }
        return cause.getClass().getSimpleName() + (cause.getMessage() == null ? "" : ": " + cause.getMessage());
    }

    private KafkaProducer<String, SpecificRecord> producer() {
        KafkaProducer<String, SpecificRecord> current = producer;
        if (current == null) {
            synchronized (this) {
                current = producer;
                if (current == null) {
                    current = settings.clients().eventProducer(settings.consumerName() + "-producer",
                            producerOverrides(settings.writeTimeout()));
                    producer = current;
                }
            }
        }
        return current;
    }

    /**
     * The publisher's producer settings over the shared ones. Sends bounded by the write timeout (at least 2 s).
     * No linger: a request waits for its record's acknowledgement, so each millisecond the producer holds a
     * record to batch it is a millisecond on every {@code POST}; records still batch while a send is in flight.
     */
    static Map<String, Object> producerOverrides(java.time.Duration writeTimeout) {
        long bound = Math.max(2_000, writeTimeout.toMillis());
        return Map.of(ProducerConfig.LINGER_MS_CONFIG, 0,
                ProducerConfig.MAX_BLOCK_MS_CONFIG, bound,
                ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, (int) bound,
                // delivery.timeout.ms must cover linger.ms + request.timeout.ms
                ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) (bound / 2));
    }

    /** Connects at start (in the background) so the first request does not pay for it. */
    void warmUp(@Observes io.quarkus.runtime.StartupEvent event) {
        Thread warm = new Thread(() -> {
            try {
                for (String topic : java.util.List.of(dev.allot.schemas.catalogue.Topics.BUDGETS.name(),
                        dev.allot.schemas.catalogue.Topics.JOB_REQUESTS.name())) {
                    producer().partitionsFor(topic);
                }
            } catch (RuntimeException e) {
                org.jboss.logging.Logger.getLogger(EventPublisher.class)
                        .warnf("could not reach Kafka at start (%s); will retry on the first write", e.getMessage());
            }
        }, "budget-producer-warm-up");
        warm.setDaemon(true);
        warm.start();
    }

    void close(@Observes ShutdownEvent event) {
        KafkaProducer<String, SpecificRecord> current = producer;
        if (current != null) {
            current.close(java.time.Duration.ofSeconds(5));
        }
    }
}
