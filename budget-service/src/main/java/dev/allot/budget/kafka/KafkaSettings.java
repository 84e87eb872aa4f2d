package dev.allot.budget.kafka;

import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/** Where the broker and the registry are, and how long a write may wait. */
@ApplicationScoped
public class KafkaSettings {

    @ConfigProperty(name = "kafka.bootstrap.servers", defaultValue = "127.0.0.1:9092")
    String bootstrapServers;

    /** Base URL of the schema registry (EventSerdes appends /apis/registry/v3). */
    @ConfigProperty(name = "allot.registry.url", defaultValue = "http://127.0.0.1:8080")
    String registryUrl;

    /** How long a write waits for Kafka's ack, and then for the projection to show it. */
    @ConfigProperty(name = "allot.budget.write-timeout", defaultValue = "10s")
    Duration writeTimeout;

    /** Name of this consumer in dead letters and client ids. */
    @ConfigProperty(name = "allot.budget.consumer-name", defaultValue = "budget-service")
    String consumerName;

    public String bootstrapServers() {
        return bootstrapServers;
    }

    public String registryUrl() {
        return registryUrl;
    }

    public Duration writeTimeout() {
        return writeTimeout;
    }

    public String consumerName() {
        return consumerName;
    }
}
