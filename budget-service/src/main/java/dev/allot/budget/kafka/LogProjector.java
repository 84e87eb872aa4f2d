package dev.allot.budget.kafka;

import dev.allot.budget.LogView;
import dev.allot.edge.ConsumerLag;
import dev.allot.edge.DeadLetterHistory;
import dev.allot.edge.EventReader;
import dev.allot.edge.InvalidRecord;
import dev.allot.edge.LogThrottle;
import dev.allot.edge.Redelivery;
import dev.allot.edge.RegistryUnavailable;
import dev.allot.budget.tree.Account;
import dev.allot.budget.tree.UsageBook;
import dev.allot.schemas.AccountDemand;
import dev.allot.schemas.BudgetDefined;
import dev.allot.schemas.ChargeMode;
import dev.allot.schemas.BudgetEvent;
import dev.allot.schemas.BudgetRemoved;
import dev.allot.schemas.BudgetUsage;
import dev.allot.schemas.JobCancelRequested;
import dev.allot.schemas.JobEvent;
import dev.allot.schemas.JobRequest;
import dev.allot.schemas.JobSubmitted;
import dev.allot.schemas.NodeRegistered;
import dev.allot.schemas.NodeStatus;
import dev.allot.schemas.QueueSnapshot;
import dev.allot.schemas.UsageReported;
import dev.allot.schemas.catalogue.DeadLetters;
import dev.allot.schemas.catalogue.Topic;
import dev.allot.schemas.catalogue.Topics;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.jboss.logging.Logger;

/**
 * Feeds {@link LogView} from the log. Every instance reads every partition of its topics from the
 * beginning (no consumer group, no committed offsets: the state is a projection, rebuilt at each
 * start) and keeps following them. Values are read as raw bytes and decoded here by the edge's
 * {@link EventReader}, so a record that cannot be read goes to the dead-letter topic with the reason instead
 * of stopping the service; one that cannot be read yet (the registry does not answer) is read again.
 * Reads with isolation level read_committed: decisions of an aborted scheduler transaction never show.
 */
@ApplicationScoped
public class LogProjector {

    private static final Logger LOG = Logger.getLogger(LogProjector.class);
    /** A flood of bad records gets a few lines a minute, not one each (the dead-letters topic has every one). */
    private final LogThrottle deadLetterLines = LogThrottle.perMinute();

    static final List<Topic<String, ?>> TOPICS = List.of(Topics.BUDGETS, Topics.JOB_REQUESTS, Topics.JOB_EVENTS,
            Topics.NODE_STATUS, Topics.BUDGET_USAGE, Topics.QUEUE_STATUS, Topics.USAGE, Topics.ACCOUNT_DEMAND);

    @Inject
    KafkaSettings settings;

    @Inject
    LogView view;

    @Inject
    EventPublisher publisher;

    @Inject
    MeterRegistry metrics;

    /** Next offset to process per partition; guarded by {@code this}; waiters are notified on change. */
    private final Map<TopicPartition, Long> processed = new HashMap<>();
    private Map<TopicPartition, Long> endsAtStart;
    private volatile boolean caughtUp;
    private volatile boolean running = true;
    private volatile Thread thread;
    private volatile KafkaConsumer<byte[], byte[]> consumer;
    private Counter deadLetters;
    private Counter registryWaits;
    private Counter applied;
    private DeadLetterOutbox outbox;
    private final ConsumerLag lag = new ConsumerLag();

    void start(@Observes StartupEvent event) {
        deadLetters = Counter.builder("allot.dead.letters").tag("consumer", settings.consumerName())
                .description("Records this service could not process and sent to dead-letters").register(metrics);
        registryWaits = Counter.builder("allot.registry.waits").tag("consumer", settings.consumerName())
                .description("Times a record could not be read yet because the schema registry did not answer")
                .register(metrics);
        outbox = new DeadLetterOutbox(publisher);
        applied = Counter.builder("allot.budget.projection.records").description("Log records applied")
                .register(metrics);
        metrics.gauge("allot.budget.projection.caught.up", this, p -> p.caughtUp ? 1 : 0);
        io.micrometer.core.instrument.Gauge.builder("allot.consumer.lag.records", lag, ConsumerLag::records)
                .tag("consumer", settings.consumerName())
                .description("Records the projection is behind the ends of its partitions").register(metrics);
        metrics.gauge("allot.budget.accounts", view, v -> v.tree().size());
        metrics.gauge("allot.budget.jobs.known", view, v -> v.jobs().size());
        io.micrometer.core.instrument.Gauge.builder("allot.budget.jobs.finished.as.facts", view,
                        v -> v.jobs().finishedAsFacts())
                .description("Finished jobs kept as their facts' bytes (all but the most recently finished)")
                .register(metrics);
        io.micrometer.core.instrument.FunctionCounter.builder("allot.budget.jobs.reopened", view,
                        v -> v.jobs().reopened())
                .description("Facts that came for a job kept as facts only (applied to its facts read back)")
                .register(metrics);
        reader = settings.clients().reader();
        // a reader of its own, one thread at a time: HTTP workers read finished jobs' facts back, and Avro's readers
        // fill unsynchronised caches on a schema's first use; the writer schemas are the projector's (already read)
        EventReader factsReader = reader.sharingSchemas();
        view.jobs().readWireWith((wire, type) -> {
            synchronized (factsReader) {
                return factsReader.read(wire, type);
            }
        });
        for (Topic<String, ?> topic : TOPICS) {
            valueTypes.put(topic.name(), topic.valueType().asSubclass(SpecificRecord.class));
        }
        thread = new Thread(this::run, "budget-log-projector");
        thread.setDaemon(true);
        thread.start();
    }

    void stop(@Observes ShutdownEvent event) {
        running = false;
        KafkaConsumer<byte[], byte[]> current = consumer;
        if (current != null) {
            current.wakeup();
        }
        Thread t = thread;
        if (t != null) {
            try {
                t.join(5_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (outbox != null) {
            outbox.close();
        }
    }

    /** Records dead-lettered by this projector (not those an earlier run sent, which it skips). */
    public double deadLettersSent() {
        return deadLetters.count();
    }

    /** True once every partition has been read up to where it ended when the service started. */
    public boolean caughtUp() {
        return caughtUp;
    }

    public boolean alive() {
        Thread t = thread;
        return t != null && t.isAlive();
    }

    /** Waits until the projection has applied the record at {@code offset}; false on timeout. */
    public boolean awaitApplied(String topic, int partition, long offset, Duration timeout) {
        TopicPartition tp = new TopicPartition(topic, partition);
        return awaitUntil(() -> processed.getOrDefault(tp, -1L) > offset, timeout);
    }

    /** Waits until the initial replay is done; false on timeout. */
    public boolean awaitCaughtUp(Duration timeout) {
        return caughtUp || awaitUntil(() -> caughtUp, timeout); // no lock on the hot path of every submission
    }

    /** Waits on this projection's monitor (notified after each applied batch) until the condition holds. */
    private synchronized boolean awaitUntil(BooleanSupplier condition, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            try {
                wait(Math.max(1, left / 1_000_000));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return true;
    }

    private void run() {
        while (running) {
            try (KafkaConsumer<byte[], byte[]> c = settings.clients().consumer(settings.consumerName() + "-projector",
                    Map.of(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 100))) {
                consumer = c;
                if (!assign(c)) {
                    continue;
                }
                if (deadLettered == null) {
                    deadLettered = DeadLetterHistory.read(settings.clients(), settings.consumerName(),
                            Duration.ofMinutes(2));
                    LOG.infof("%d records dead-lettered by earlier runs; they are not sent again",
                            deadLettered.size());
                }
                while (running) {
                    ConsumerRecords<byte[], byte[]> records = c.poll(Duration.ofMillis(200));
                    lag.measure(c);
                    boolean retry = false;
                    for (ConsumerRecord<byte[], byte[]> record : records) {
                        try {
                            apply(record);
                        } catch (RegistryUnavailable e) {
                            // not the record's fault: read it (and what follows) again after a pause
                            LOG.warnf("cannot read %s-%d@%d yet: %s; retrying", record.topic(), record.partition(),
                                    record.offset(), e.getMessage());
                            Redelivery.seekBack(c, records, record);
                            registryWaits.increment();
                            retry = true;
                            break;
                        }
                    }
                    progress(c);
                    if (retry) {
                        pause(Duration.ofSeconds(1));
                    }
                }
            } catch (WakeupException e) {
                // shutting down
            } catch (RuntimeException e) {
                // a broker outage or similar: start a fresh consumer where this one stopped
                LOG.errorf(e, "log projector failed; restarting the consumer");
                pause(Duration.ofSeconds(1));
            }
        }
    }

    /** Assigns every partition of the topics and seeks to where this instance stopped (or the start). */
    private boolean assign(KafkaConsumer<byte[], byte[]> c) {
        List<TopicPartition> partitions = new ArrayList<>();
        for (Topic<String, ?> topic : TOPICS) {
            List<PartitionInfo> infos = c.partitionsFor(topic.name(), Duration.ofSeconds(10));
            if (infos == null || infos.isEmpty()) {
                LOG.warnf("topic %s does not exist yet; waiting for it", topic.name());
                pause(Duration.ofSeconds(1));
                return false;
            }
            infos.forEach(info -> partitions.add(new TopicPartition(info.topic(), info.partition())));
        }
        c.assign(partitions);
        synchronized (this) {
            for (TopicPartition tp : partitions) {
                Long next = processed.get(tp);
                if (next == null) {
                    c.seekToBeginning(List.of(tp));
                } else {
                    c.seek(tp, next);
                }
            }
            if (endsAtStart == null) {
                endsAtStart = c.endOffsets(partitions, Duration.ofSeconds(30));
                LOG.infof("replaying %d partitions up to %s", partitions.size(), endsAtStart);
            }
        }
        return true;
    }

    private synchronized void progress(KafkaConsumer<byte[], byte[]> c) {
        for (TopicPartition tp : c.assignment()) {
            processed.put(tp, c.position(tp));
        }
        if (!caughtUp && endsAtStart != null && endsAtStart.entrySet().stream()
                .allMatch(end -> processed.getOrDefault(end.getKey(), 0L) >= end.getValue())) {
            caughtUp = true;
            LOG.infof("projection caught up: %d accounts, %d jobs", view.tree().size(), view.jobs().size());
        }
        notifyAll();
    }

    private EventReader reader;
    /** Read once, before the first record is applied; then kept up to date by {@link #deadLetter}. */
    private DeadLetterHistory deadLettered;
    private final Map<String, Class<? extends SpecificRecord>> valueTypes = new HashMap<>();

    /** @throws RegistryUnavailable the record could not be read yet: the caller reads it again later */
    private void apply(ConsumerRecord<byte[], byte[]> record) {
        String topic = record.topic();
        if (record.value() == null) {
            // a tombstone: on the compacted budgets topic it removes the account
            if (topic.equals(Topics.BUDGETS.name()) && record.key() != null) {
                view.budgetRemoved(new String(record.key(), java.nio.charset.StandardCharsets.UTF_8));
            }
            return;
        }
        Object value;
        try {
            value = reader.read(record.value(), valueTypes.get(topic));
        } catch (InvalidRecord e) {
            deadLetter(record, "cannot deserialise: " + DeadLetters.reasonOf(e));
            return;
        }
        try {
            if (!route(topic, value, record.value())) {
                deadLetter(record, "unexpected record type " + (value == null ? "null" : value.getClass().getName())
                        + " on " + topic);
                return;
            }
            applied.increment();
        } catch (RuntimeException e) {
            deadLetter(record, "cannot apply: " + DeadLetters.reasonOf(e));
        }
    }

    private boolean route(String topic, Object value, byte[] wire) {
        if (topic.equals(Topics.BUDGETS.name()) && value instanceof BudgetEvent event) {
            switch (event.getPayload()) {
                case BudgetDefined d -> view.budgetDefined(
                        new Account(d.getPath(), d.getParent(), d.getShare(), d.getEffectiveAt(), d.getDefinedBy(),
                                d.getOwners(), d.getMembers(), d.getCreatedAt()));
                case BudgetRemoved r -> view.budgetRemoved(r.getPath());
                default -> {
                    return false;
                }
            }
            return true;
        }
        if (topic.equals(Topics.JOB_REQUESTS.name()) && value instanceof JobRequest request) {
            Object payload = request.getPayload();
            if (!(payload instanceof JobSubmitted) && !(payload instanceof JobCancelRequested)) {
                return false;
            }
            view.jobs().request(request, wire);
            return true;
        }
        if (topic.equals(Topics.JOB_EVENTS.name()) && value instanceof JobEvent event) {
            view.jobs().event(event, wire);
            return true;
        }
        if (topic.equals(Topics.NODE_STATUS.name()) && value instanceof NodeStatus status) {
            if (status.getPayload() instanceof NodeRegistered registered) {
                view.capacity().nodeRegistered(status.getNodeId(), registered.getCluster(), registered.getGpuCount());
            }
            view.nodes().apply(status);
            return true;
        }
        if (topic.equals(Topics.USAGE.name()) && value instanceof UsageReported u) {
            view.hours().usage(u.getCluster(), u.getAccount(), u.getIntervalStart().toEpochMilli(),
                    u.getIntervalEnd().toEpochMilli(), u.getGpuSeconds(), u.getChargeMode() != ChargeMode.UNALLOCATED);
            return true;
        }
        if (topic.equals(Topics.ACCOUNT_DEMAND.name()) && value instanceof AccountDemand d) {
            view.hours().demand(d.getCluster(), d.getAccount(), d.getIntervalStart().toEpochMilli(),
                    d.getIntervalEnd().toEpochMilli(), d.getDemandedGpus());
            return true;
        }
        if (topic.equals(Topics.BUDGET_USAGE.name()) && value instanceof BudgetUsage u) {
            view.usage().record(new UsageBook.Usage(u.getCluster(), u.getAccount(), u.getWindowStart(),
                    u.getWindowEnd(), u.getChargedGpuSeconds(), u.getUnallocatedGpuSeconds(),
                    u.getEntitledGpuSeconds(), u.getRatio()));
            return true;
        }
        if (topic.equals(Topics.QUEUE_STATUS.name()) && value instanceof QueueSnapshot snapshot) {
            view.queues().snapshot(snapshot);
            return true;
        }
        return false;
    }

    private void deadLetter(ConsumerRecord<byte[], byte[]> record, String reason) {
        if (deadLettered.alreadySent(record.topic(), record.partition(), record.offset())) {
            return; // an earlier run sent it (every launch replays the log from the start)
        }
        deadLettered.sent(record.topic(), record.partition(), record.offset());
        deadLetters.increment();
        deadLetterLines.log(System.currentTimeMillis(), "dead letters", LOG::warn,
                () -> String.format("dead letter from %s-%d@%d: %s", record.topic(), record.partition(),
                        record.offset(), reason));
        outbox.send(DeadLetters.of(record, reason, settings.consumerName(), Instant.now()));
    }

    private static void pause(Duration duration) {
        try {
            Thread.sleep(duration.toMillis()); // back-off before reconnecting, not synchronisation
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
