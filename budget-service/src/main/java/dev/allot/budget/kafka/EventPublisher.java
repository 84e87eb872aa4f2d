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
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;

/**
 * Writes events to catalogue topics through the registry (Confluent wire format), with the edge's event
 * producer (idempotent, acks=all): a write is acknowledged to the caller only once the broker has it.
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

    private KafkaProducer<String, SpecificRecord> producer() {
        KafkaProducer<String, SpecificRecord> current = producer;
        if (current == null) {
            synchronized (this) {
                current = producer;
                if (current == null) {
                    current = settings.clients().eventProducer(settings.consumerName() + "-producer", Map.of());
                    producer = current;
                }
            }
        }
        return current;
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
