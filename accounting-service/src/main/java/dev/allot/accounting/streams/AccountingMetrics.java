package dev.allot.accounting.streams;

import dev.allot.accounting.book.Fact;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.kafka.KafkaStreamsMetrics;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import dev.allot.schemas.catalogue.Topics;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.streams.KafkaStreams;

/**
 * Prometheus metrics (at /q/metrics): facts booked, late events (within grace), dead letters by topic
 * and kind, consumer lag, BudgetUsage records published, entries per state store, and every Kafka Streams client
 * metric (consumer lag {@code kafka_consumer_fetch_manager_records_lag_max}, commit and process rates).
 */
@ApplicationScoped
public class AccountingMetrics implements AccountingListener {

    @Inject
    MeterRegistry registry;
    @Inject
    Instance<KafkaStreams> streams;

    private final Map<Fact.Kind, Counter> booked = new EnumMap<>(Fact.Kind.class);
    private Counter late;
    private Counter published;

    void start(@Observes StartupEvent ignored) {
        for (Fact.Kind k : Fact.Kind.values()) {
            booked.put(k, Counter.builder("allot.accounting.facts.booked").tag("kind", k.name().toLowerCase())
                    .description("Usage and demand facts booked into hourly rows").register(registry));
        }
        late = Counter.builder("allot.accounting.late.events")
                .description("Facts that arrived behind the stream time but within grace").register(registry);
        published = Counter.builder("allot.accounting.budget.usage.published")
                .description("BudgetUsage records published").register(registry);
        for (String store : List.of(AccountingTopology.ROWS_STORE, AccountingTopology.ACCOUNTS_STORE,
                AccountingTopology.NODES_STORE, AccountingTopology.BUDGETS_STORE)) {
            Gauge.builder("allot.accounting.store.entries", this, m -> m.entries(store)).tag("store", store)
                    .description("Approximate entries of a local state store").register(registry);
        }
        // registered at 0 up front: an alert on increase() sees the first dead letter too
        for (String topic : List.of(Topics.USAGE.name(), Topics.ACCOUNT_DEMAND.name(), Topics.NODE_STATUS.name())) {
            for (String kind : List.of("malformed", "invalid", "too-late")) {
                deadLetterCounter(topic, kind);
            }
        }
        if (streams.isResolvable()) {
            new KafkaStreamsMetrics(streams.get()).bindTo(registry);
            Gauge.builder("allot.consumer.lag.records", this, m -> m.lag()).tag("consumer", IntakeProcessor.CONSUMER)
                    .description("Records the stream threads' consumers are behind the ends of their partitions")
                    .register(registry);
        }
    }

    private double entries(String store) {
        try {
            return StoreViews.store(streams.get(), store).approximateNumEntries();
        } catch (RuntimeException notReady) {
            return Double.NaN;
        }
    }

    @Override
    public void booked(Fact fact) {
        Counter c = booked.get(fact.kind());
        if (c != null) {
            c.increment();
        }
    }

    @Override
    public void lateWithinGrace(Fact fact) {
        if (late != null) {
            late.increment();
        }
    }

    @Override
    public void deadLettered(String sourceTopic, String kind) {
        deadLetterCounter(sourceTopic, kind).increment();
    }

    private Counter deadLetterCounter(String sourceTopic, String kind) {
        return Counter.builder("allot.dead.letters").tag("consumer", IntakeProcessor.CONSUMER).tag("topic", sourceTopic)
                .tag("kind", kind).description("Records sent to the dead letters").register(registry);
    }

    /**
     * Sum of the per-partition {@code records-lag} of the main and global consumers (not the restore
     * consumers: restoring is not falling behind the input).
     */
    private double lag() {
        double sum = 0;
        for (Map.Entry<MetricName, ? extends Metric> e : streams.get().metrics().entrySet()) {
            MetricName name = e.getKey();
            String client = name.tags().getOrDefault("client-id", "");
            if (name.name().equals("records-lag") && name.group().equals("consumer-fetch-manager-metrics")
                    && name.tags().containsKey("partition") && !client.endsWith("restore-consumer")
                    && e.getValue().metricValue() instanceof Number n && !Double.isNaN(n.doubleValue())) {
                sum += n.doubleValue();
            }
        }
        return sum;
    }

    @Override
    public void published(int budgetUsages) {
        if (published != null) {
            published.increment(budgetUsages);
        }
    }
}
