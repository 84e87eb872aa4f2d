package dev.allot.budget.kafka;

import dev.allot.edge.KafkaClients;
import dev.allot.edge.security.KafkaSecurity;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import org.eclipse.microprofile.config.ConfigProvider;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/** Where the broker and the registry are, how long a write may wait, and the Kafka clients built from that. */
@ApplicationScoped
public class KafkaSettings {

    @ConfigProperty(name = "kafka.bootstrap.servers", defaultValue = "127.0.0.1:9092")
    String bootstrapServers;

    /** Base URL of the schema registry (the edge appends /apis/registry/v3). */
    @ConfigProperty(name = "allot.registry.url", defaultValue = "http://127.0.0.1:8080")
    String registryUrl;

    /** How long a write waits for Kafka's ack, and then for the projection to show it. */
    @ConfigProperty(name = "allot.budget.write-timeout", defaultValue = "10s")
    Duration writeTimeout;

    /** Name of this consumer in dead letters and client ids. */
    @ConfigProperty(name = "allot.budget.consumer-name", defaultValue = "budget-service")
    String consumerName;

    private volatile KafkaClients clients;

    /** The edge's client builder (and its one EventReader) for this broker and registry. */
    public KafkaClients clients() {
        KafkaClients current = clients;
        if (current == null) {
            synchronized (this) {
                current = clients;
                if (current == null) {
                    // kafka.security.protocol, kafka.sasl.mechanism, kafka.sasl.jaas.config (PLAINTEXT when unset)
                    current = new KafkaClients(bootstrapServers, registryUrl, KafkaSecurity.from(
                            key -> ConfigProvider.getConfig().getOptionalValue(key, String.class)));
                    clients = current;
                }
            }
        }
        return current;
    }

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
