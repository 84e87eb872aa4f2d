package dev.allot.accounting.streams;

import dev.allot.edge.KafkaClients;
import dev.allot.edge.security.KafkaSecurity;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Inject;
import dev.allot.schemas.catalogue.Topics;
import java.time.Duration;
import java.util.Optional;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler;
import org.eclipse.microprofile.config.ConfigProvider;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/** Quarkus edge: the topology and its settings from configuration. */
@ApplicationScoped
public class AccountingStreams {

    @ConfigProperty(name = "allot.registry.url", defaultValue = "http://127.0.0.1:8080")
    String registryUrl;
    @ConfigProperty(name = "allot.accounting.window", defaultValue = "P7D")
    Duration window;
    @ConfigProperty(name = "allot.accounting.grace", defaultValue = "PT1H")
    Duration grace;
    @ConfigProperty(name = "allot.accounting.emit-interval", defaultValue = "PT1S")
    Duration emitInterval;
    @ConfigProperty(name = "allot.accounting.retention", defaultValue = "P400D")
    Duration retention;
    @ConfigProperty(name = "allot.accounting.partitions", defaultValue = "6")
    int partitions;
    @ConfigProperty(name = "kafka.bootstrap.servers", defaultValue = "127.0.0.1:9092")
    String bootstrapServers;
    @ConfigProperty(name = "quarkus.kafka-streams.application-id")
    String applicationId;
    /** Static membership's id of this instance (unset: dynamic membership). */
    @ConfigProperty(name = "allot.accounting.instance-id")
    Optional<String> instanceId;
    @ConfigProperty(name = "kafka-streams.num.stream.threads", defaultValue = "1")
    int threads;

    private static final org.jboss.logging.Logger LOG = org.jboss.logging.Logger.getLogger(AccountingStreams.class);

    private BudgetDeadLetters.Kafka budgetDeadLetters;
    private org.apache.kafka.clients.admin.Admin catchUpAdmin;

    @Inject
    AccountingMetrics metrics;

    public AccountingSettings settings() {
        return new AccountingSettings(window, grace, emitInterval, retention, partitions);
    }

    public BudgetReader budgetReader() {
        return new BudgetReader(Topics.BUDGETS.name(), AccountingSerdes.registry(registryUrl).serde(Topics.BUDGETS).deserializer());
    }

    /** Found by Quarkus' Kafka Streams extension and set on the client before it starts. */
    @Produces
    public StreamsUncaughtExceptionHandler uncaughtExceptionHandler() {
        return new RegistryRetry(membership());
    }

    StaticMembers membership() {
        return new StaticMembers(() -> kafkaClients().admin(), applicationId, instanceId.orElse(null), threads);
    }

    /** A member left by an earlier run's replaced thread would hold tasks until its session ends (StaticMembers). */
    void evictLeftovers(@Observes StartupEvent event) {
        StaticMembers membership = membership();
        if (membership.enabled()) {
            Thread.ofPlatform().daemon().name("allot-static-members").start(membership::evictLeftovers);
        }
    }

    /** Whether the stores have read the backlog the instance started with (readiness waits for it). */
    @Produces
    @jakarta.inject.Singleton
    CatchUp catchUp(org.apache.kafka.streams.KafkaStreams streams) {
        catchUpAdmin = kafkaClients().admin();
        return new CatchUp(CatchUp.onBroker(catchUpAdmin, applicationId), CatchUp.assignedTo(streams));
    }

    /** Looks every 100 ms from the start until caught up, then lets its Admin client go. */
    void watchCatchUp(@Observes StartupEvent event, CatchUp catchUp) {
        Thread.ofPlatform().daemon().name("allot-accounting-catch-up").start(() -> {
            long began = System.nanoTime();
            long running = 0;
            try {
                while (!catchUp.check()) {
                    if (running == 0 && catchUp.progress().startsWith("round")) {
                        running = System.nanoTime();
                        LOG.infof("streams running %d ms after the start; %s", (running - began) / 1_000_000,
                                catchUp.progress());
                    }
                    Thread.sleep(100);
                }
                LOG.infof("caught up with the inputs as they stood at the start, %d ms after the start%s: ready",
                        (System.nanoTime() - began) / 1_000_000, running == 0 ? ""
                                : " (" + (System.nanoTime() - running) / 1_000_000 + " ms reading the backlog)");
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                closeCatchUpAdmin();
            }
        });
    }

    private synchronized void closeCatchUpAdmin() {
        if (catchUpAdmin != null) {
            catchUpAdmin.close(Duration.ofSeconds(1));
            catchUpAdmin = null;
        }
    }

    private KafkaClients kafkaClients() {
        // kafka.security.protocol, kafka.sasl.mechanism, kafka.sasl.jaas.config (PLAINTEXT when unset), as Streams'
        return new KafkaClients(bootstrapServers, registryUrl, KafkaSecurity.from(
                key -> ConfigProvider.getConfig().getOptionalValue(key, String.class)));
    }

    @Produces
    public Topology topology() {
        budgetDeadLetters = BudgetDeadLetters.kafka(kafkaClients());
        return AccountingTopology.build(settings(), AccountingTopics.catalogue(), AccountingSerdes.registry(registryUrl),
                metrics, budgetDeadLetters);
    }

    void close(@Observes ShutdownEvent event) {
        if (budgetDeadLetters != null) {
            budgetDeadLetters.close();
        }
        closeCatchUpAdmin();
    }
}
