package dev.allot.scheduler;

import dev.allot.core.ReplicaPlacement;
import dev.allot.schemas.BudgetDefined;
import dev.allot.schemas.BudgetEvent;
import dev.allot.schemas.BudgetRemoved;
import dev.allot.schemas.BudgetUsage;
import dev.allot.schemas.JobCancelRequested;
import dev.allot.schemas.JobCheckpointed;
import dev.allot.schemas.JobEvent;
import dev.allot.schemas.JobExited;
import dev.allot.schemas.JobRequest;
import dev.allot.schemas.JobStarted;
import dev.allot.schemas.JobSubmitted;
import dev.allot.schemas.NodeDrainRequested;
import dev.allot.schemas.NodeHeartbeat;
import dev.allot.schemas.NodeRegistered;
import dev.allot.schemas.NodeStatus;
import dev.allot.schemas.NodeUndrained;
import dev.allot.schemas.catalogue.DeadLetters;
import dev.allot.schemas.catalogue.EventSerdes;
import dev.allot.schemas.catalogue.Topics;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.jboss.logging.Logger;

/**
 * The scheduler's Kafka loop for one cluster, on a thread of its own: rebuild, then
 * poll → apply → pass → one transaction (journal entry, commands, decisions, dead letters, input
 * offsets). Plain Kafka clients, so that what is committed together is exactly what we say.
 *
 * <p>Recovery (README, "Recovery"): the journal entry, the outputs and the input offsets of a step
 * commit atomically. On start the loop fences any older instance ({@code initTransactions} with the
 * cluster's transactional id), replays the journal into a fresh {@link Projection} (the core is
 * deterministic, so it takes the same decisions again, discarded this time), and resumes every
 * input from the committed offsets, which are exactly the inputs the journal does not contain.
 */
public final class SchedulerLoop implements Runnable {

    private static final Logger LOG = Logger.getLogger(SchedulerLoop.class);

    public enum Phase { STARTING, REPLAYING, RUNNING, FENCED, FAILED, STOPPED }

    /** What the outside (health, metrics, HTTP, tests) may read; replaced after every step. */
    public record Status(Phase phase, String cluster, int waiting, int running, int nodes, long lastPassAtMillis,
            long replayedEntries, long replayMillis, Map<String, List<ReplicaPlacement>> runningJobs) {
        static Status initial(String cluster) {
            return new Status(Phase.STARTING, cluster, 0, 0, 0, -1, 0, 0, Map.of());
        }
    }

    private static final List<String> INPUT_TOPICS = List.of(Topics.BUDGETS.name(), Topics.NODE_STATUS.name(),
            Topics.BUDGET_USAGE.name(), Topics.JOB_EVENTS.name(), Topics.JOB_REQUESTS.name());

    private final Settings settings;
    private final LoopMetrics metrics;
    private final Serializer<SpecificRecord> serializer;
    private final AvroDecoder decoder;
    private volatile boolean stopping;
    private volatile Status status;
    private volatile Thread thread;
    private volatile KafkaConsumer<byte[], byte[]> activeConsumer;
    private final CountDownLatch finished = new CountDownLatch(1);

    public SchedulerLoop(Settings settings, MeterRegistry registry) {
        this.settings = settings;
        this.status = Status.initial(settings.cluster());
        this.metrics = new LoopMetrics(registry, settings.cluster(), () -> status);
        this.serializer = EventSerdes.valueSerializer(settings.registryUrl());
        this.decoder = new AvroDecoder(settings.registryUrl());
    }

    public Status status() {
        return status;
    }

    public double deadLetterCount() {
        return metrics.deadLetters();
    }

    public synchronized void start() {
        if (thread != null) {
            throw new IllegalStateException("a loop object runs once; create a new one to restart");
        }
        thread = new Thread(this, "allot-scheduler-" + settings.cluster());
        thread.setDaemon(true);
        // The Avro deserialiser resolves record classes through the context class loader: make it ours
        // (under Quarkus tests the creating thread's may be the JDK's application loader).
        thread.setContextClassLoader(SchedulerLoop.class.getClassLoader());
        thread.start();
    }

    /** Asks the loop to stop after its current step (an open transaction is aborted) and waits for it. */
    public void stop() {
        stopping = true;
        KafkaConsumer<byte[], byte[]> c = activeConsumer;
        if (c != null) {
            c.wakeup();
        }
        try {
            finished.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void run() {
        try {
            while (!stopping) {
                try {
                    runInstance();
                } catch (ProducerFencedException | InvalidProducerEpochException e) {
                    LOG.errorf("scheduler for cluster %s fenced by a newer instance (%s); this one stops",
                            settings.cluster(), e.toString());
                    setPhase(Phase.FENCED);
                    return;
                } catch (WakeupException e) {
                    if (!stopping) {
                        LOG.warn("unexpected wakeup; rebuilding", e);
                    }
                } catch (RuntimeException e) {
                    if (fenced(e)) {
                        LOG.errorf("scheduler for cluster %s fenced by a newer instance (%s); this one stops",
                                settings.cluster(), e.toString());
                        setPhase(Phase.FENCED);
                        return;
                    }
                    if (stopping) {
                        break;
                    }
                    // State may no longer match what was committed: start again from the log.
                    LOG.error("scheduler loop failed; rebuilding from the journal in 1 s", e);
                    setPhase(Phase.FAILED);
                    sleepQuietly(1000);
                }
            }
            setPhase(Phase.STOPPED);
        } finally {
            finished.countDown();
        }
    }

    /** A newer instance took the cluster's transactional id: this one must not go on (nor start again). */
    static boolean fenced(Throwable error) {
        for (Throwable t = error; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof ProducerFencedException || t instanceof InvalidProducerEpochException
                    || t instanceof org.apache.kafka.common.errors.FencedInstanceIdException
                    || (t.getMessage() != null && t.getMessage().toLowerCase(java.util.Locale.ROOT).contains("fenced"))) {
                return true;
            }
            for (Throwable s : t.getSuppressed()) {
                if (fenced(s)) {
                    return true;
                }
            }
        }
        return false;
    }

    private void runInstance() {
        setPhase(Phase.STARTING);
        ensureJournalTopic();
        try (KafkaProducer<String, byte[]> producer = newProducer();
                KafkaConsumer<byte[], byte[]> consumer = newConsumer(settings.groupId())) {
            producer.initTransactions(); // fences an older instance and aborts its open transaction
            setPhase(Phase.REPLAYING);
            long began = System.nanoTime();
            Projection projection = new Projection(settings);
            long entries = replay(projection);
            long replayMillis = (System.nanoTime() - began) / 1_000_000;
            LOG.infof("cluster %s: replayed %d journal entries in %d ms (%d jobs running, %d waiting, %d nodes)",
                    settings.cluster(), entries, replayMillis, projection.runningCount(), projection.waitingCount(),
                    projection.nodeCount());
            projection.heardAllAt(System.currentTimeMillis());
            assignInputs(consumer);
            activeConsumer = consumer;
            publishStatus(Phase.REPLAYING, projection, -1, entries, replayMillis);
            steps(projection, producer, consumer, entries, replayMillis);
        } finally {
            activeConsumer = null;
        }
    }

    // ------------------------------------------------------------------ the loop proper

    private void steps(Projection projection, KafkaProducer<String, byte[]> producer,
            KafkaConsumer<byte[], byte[]> consumer, long replayedEntries, long replayMillis) {
        long tickMillis = settings.tick().toMillis();
        long nextTick = 0;
        long lastSnapshot = 0;
        long lastPassAt = -1;
        boolean queueChanged = true;
        DemandMeter demand = new DemandMeter(settings.cluster(), settings.demandInterval().toMillis());
        Map<TopicPartition, Long> committed = new HashMap<>();
        for (TopicPartition tp : consumer.assignment()) {
            committed.put(tp, consumer.position(tp));
        }
        // Facts first: budgets, nodes, usage and agent reports up to their ends before any new
        // submission, so that a submission is never judged against a tree or cluster not yet read.
        List<TopicPartition> requests = new ArrayList<>();
        List<TopicPartition> facts = new ArrayList<>();
        for (TopicPartition tp : consumer.assignment()) {
            (tp.topic().equals(Topics.JOB_REQUESTS.name()) ? requests : facts).add(tp);
        }
        Map<TopicPartition, Long> factsEnd = consumer.endOffsets(facts);
        consumer.pause(requests);
        boolean catchingUp = true;
        Phase phase = Phase.REPLAYING;
        while (!stopping) {
            if (catchingUp && factsEnd.entrySet().stream().allMatch(e -> consumer.position(e.getKey()) >= e.getValue())) {
                consumer.resume(requests);
                catchingUp = false;
                phase = Phase.RUNNING;
                LOG.infof("cluster %s: facts read up to their ends; taking submissions", settings.cluster());
                publishStatus(phase, projection, lastPassAt, replayedEntries, replayMillis);
            }
            long wait = Math.max(1, Math.min(100, nextTick - System.currentTimeMillis()));
            ConsumerRecords<byte[], byte[]> records = consumer.poll(Duration.ofMillis(wait));
            long now = System.currentTimeMillis();
            List<Input> applied = new ArrayList<>();
            List<Output> out = new ArrayList<>();
            for (ConsumerRecord<byte[], byte[]> record : records) {
                for (Input input : toInputs(record, projection, now, out)) {
                    applyInput(projection, input, out);
                    applied.add(input);
                }
            }
            boolean tick = now >= nextTick;
            if (tick) {
                nextTick = now + tickMillis;
                for (Input lost : projection.lostNodes(now)) {
                    LOG.warnf("cluster %s: node %s missed its heartbeats: lost", settings.cluster(),
                            ((Input.NodeLost) lost).nodeId());
                    applyInput(projection, lost, out);
                    applied.add(lost);
                }
            }
            int decisions = 0;
            if (tick || !applied.isEmpty()) {
                long began = System.nanoTime();
                try {
                    Projection.PassResult result = projection.pass(now, out);
                    decisions = result.decisions();
                    metrics.pass(System.nanoTime() - began, result.byKind());
                } catch (RuntimeException e) {
                    LOG.error("scheduling pass failed", e);
                }
                lastPassAt = now;
            }
            metrics.inputs(applied.size());
            queueChanged |= decisions > 0 || !applied.isEmpty();
            if (tick) {
                demand.sample(now, projection.demandByAccount(), out);
            }
            if (queueChanged && now - lastSnapshot >= settings.snapshotMinInterval().toMillis()) {
                out.add(new Output(Topics.QUEUE_STATUS.name(), settings.cluster(),
                        projection.snapshot(now, settings.snapshotMaxEntries())));
                lastSnapshot = now;
                queueChanged = false;
            }
            Map<TopicPartition, OffsetAndMetadata> offsets = advancedOffsets(consumer, committed);
            boolean journal = !applied.isEmpty() || decisions > 0;
            if (journal || !out.isEmpty() || !offsets.isEmpty()) {
                commit(producer, consumer, journal ? new JournalEntry(now, applied, true) : null, out, offsets);
                offsets.forEach((tp, o) -> committed.put(tp, o.offset()));
                if (LOG.isDebugEnabled()) {
                    logDecisions("committed", now, out);
                }
            }
            if (journal || tick) {
                publishStatus(phase, projection, lastPassAt, replayedEntries, replayMillis);
            }
        }
    }

    private void applyInput(Projection projection, Input input, List<Output> out) {
        try {
            projection.apply(input, out);
        } catch (RuntimeException e) {
            // Journaled all the same: a replay meets the same refusal at the same point.
            LOG.errorf(e, "input refused by the projection: %s", input);
        }
    }

    private void commit(KafkaProducer<String, byte[]> producer, KafkaConsumer<byte[], byte[]> consumer,
            JournalEntry entry, List<Output> out, Map<TopicPartition, OffsetAndMetadata> offsets) {
        producer.beginTransaction();
        try {
            if (entry != null) {
                producer.send(new ProducerRecord<>(settings.journalTopic(), settings.cluster(), entry.toBytes()));
            }
            for (Output o : out) {
                producer.send(new ProducerRecord<>(o.topic(), o.key(), serializer.serialize(o.topic(), o.value())));
            }
            if (!offsets.isEmpty()) {
                producer.sendOffsetsToTransaction(offsets, consumer.groupMetadata());
            }
            producer.commitTransaction();
            metrics.transaction();
        } catch (ProducerFencedException | InvalidProducerEpochException e) {
            throw e;
        } catch (RuntimeException e) {
            try {
                producer.abortTransaction();
            } catch (RuntimeException abort) {
                e.addSuppressed(abort);
            }
            throw e; // the projection ran ahead of the log: rebuild (run() starts over)
        }
    }

    private static Map<TopicPartition, OffsetAndMetadata> advancedOffsets(KafkaConsumer<byte[], byte[]> consumer,
            Map<TopicPartition, Long> committed) {
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        for (TopicPartition tp : consumer.assignment()) {
            long position = consumer.position(tp);
            Long before = committed.get(tp);
            if (before == null || position != before) {
                offsets.put(tp, new OffsetAndMetadata(position));
            }
        }
        return offsets;
    }

    // ------------------------------------------------------------------ mapping records to inputs

    /** Deserialises and maps one record; garbage and schema-invalid records become dead letters. */
    private List<Input> toInputs(ConsumerRecord<byte[], byte[]> record, Projection projection, long now,
            List<Output> out) {
        if (record.value() == null) {
            return List.of(); // tombstone on a compacted topic
        }
        SpecificRecord value;
        try {
            value = decode(record.topic(), record.value());
        } catch (AvroDecoder.InvalidBytes e) {
            deadLetter(record, "cannot deserialise: " + DeadLetters.reasonOf(e), now, out);
            return List.of();
        }
        try {
            return map(record.topic(), value, projection, now, out);
        } catch (InvalidRecord e) {
            deadLetter(record, e.getMessage(), now, out);
            return List.of();
        } catch (RuntimeException e) {
            deadLetter(record, "cannot map: " + DeadLetters.reasonOf(e), now, out);
            return List.of();
        }
    }

    private static final class InvalidRecord extends RuntimeException {
        InvalidRecord(String message) {
            super(message);
        }
    }

    private SpecificRecord decode(String topic, byte[] bytes) {
        if (topic.equals(Topics.JOB_REQUESTS.name())) {
            return decoder.decode(bytes, JobRequest.class, JobRequest.getClassSchema());
        }
        if (topic.equals(Topics.BUDGETS.name())) {
            return decoder.decode(bytes, BudgetEvent.class, BudgetEvent.getClassSchema());
        }
        if (topic.equals(Topics.NODE_STATUS.name())) {
            return decoder.decode(bytes, NodeStatus.class, NodeStatus.getClassSchema());
        }
        if (topic.equals(Topics.BUDGET_USAGE.name())) {
            return decoder.decode(bytes, BudgetUsage.class, BudgetUsage.getClassSchema());
        }
        if (topic.equals(Topics.JOB_EVENTS.name())) {
            return decoder.decode(bytes, JobEvent.class, JobEvent.getClassSchema());
        }
        throw new IllegalStateException("not an input topic: " + topic);
    }

    private List<Input> map(String topic, SpecificRecord value, Projection projection, long now, List<Output> out) {
        String cluster = settings.cluster();
        if (topic.equals(Topics.JOB_REQUESTS.name())) {
            JobRequest request = expect(value, JobRequest.class, topic);
            return switch (request.getPayload()) {
                case JobSubmitted s when cluster.equals(s.getCluster()) -> List.of(new Input.Submit(now, s.getJobId(),
                        s.getBudget(), s.getSubmitter(), s.getCluster(), s.getReplicas(), s.getGpusPerReplica(),
                        s.getMinRuntimeSeconds(), s.getResumable(), s.getPriority(), List.copyOf(s.getCommand()),
                        s.getEnv() == null ? Map.of() : Map.copyOf(s.getEnv()), s.getExpectedDurationSeconds(),
                        s.getSubmittedAt().toEpochMilli()));
                case JobCancelRequested c when projection.knowsJob(c.getJobId()) ->
                        List.of(new Input.Cancel(now, c.getJobId(), c.getRequestedBy(), c.getReason()));
                default -> List.of(); // another cluster's job
            };
        }
        if (topic.equals(Topics.BUDGETS.name())) {
            BudgetEvent event = expect(value, BudgetEvent.class, topic);
            return switch (event.getPayload()) {
                case BudgetDefined d -> {
                    if (!(d.getShare() > 0) || Double.isInfinite(d.getShare())) {
                        throw new InvalidRecord("budget " + d.getPath() + ": share must be > 0, got " + d.getShare());
                    }
                    yield List.of(new Input.DefineBudget(now, d.getPath(), d.getParent(), d.getShare()));
                }
                case BudgetRemoved r -> List.of(new Input.RemoveBudget(now, r.getPath()));
                default -> List.of();
            };
        }
        if (topic.equals(Topics.NODE_STATUS.name())) {
            NodeStatus status = expect(value, NodeStatus.class, topic);
            String nodeId = status.getNodeId();
            return switch (status.getPayload()) {
                case NodeRegistered r when cluster.equals(r.getCluster()) -> {
                    if (r.getGpuCount() < 1) {
                        throw new InvalidRecord("node " + nodeId + " registered with " + r.getGpuCount() + " GPUs");
                    }
                    yield List.of(new Input.RegisterNode(now, nodeId, r.getGpuCount(), r.getEpoch()));
                }
                case NodeHeartbeat h when cluster.equals(h.getCluster()) -> {
                    Input back = projection.heartbeat(now, nodeId, h.getEpoch(), h.getRunningJobs(), out);
                    yield back == null ? List.of() : List.of(back);
                }
                case NodeDrainRequested d when cluster.equals(d.getCluster()) ->
                        List.of(new Input.Drain(now, nodeId, d.getRequestedBy()));
                case NodeUndrained u when cluster.equals(u.getCluster()) -> List.of(new Input.Undrain(now, nodeId));
                default -> List.of(); // NodeDrained is ours; other clusters' nodes are not
            };
        }
        if (topic.equals(Topics.BUDGET_USAGE.name())) {
            BudgetUsage u = expect(value, BudgetUsage.class, topic);
            return cluster.equals(u.getCluster())
                    ? List.of(new Input.Usage(now, u.getAccount(), u.getChargedGpuSeconds(), u.getUnallocatedGpuSeconds()))
                    : List.of();
        }
        if (topic.equals(Topics.JOB_EVENTS.name())) {
            JobEvent event = expect(value, JobEvent.class, topic);
            if (!projection.knowsJob(event.getJobId())) {
                return List.of();
            }
            return switch (event.getPayload()) {
                case JobStarted s -> List.of(new Input.Started(now, event.getJobId(), s.getNodeId()));
                case JobCheckpointed c -> List.of(new Input.Checkpointed(now, event.getJobId(), c.getNodeId()));
                case JobExited e -> List.of(new Input.Exited(now, event.getJobId(), e.getNodeId(), e.getReplicaIndex(),
                        e.getExitCode(), e.getStopped()));
                default -> List.of(); // our own decisions: already applied when taken
            };
        }
        return List.of();
    }

    private static <T> T expect(SpecificRecord value, Class<T> type, String topic) {
        if (!type.isInstance(value)) {
            throw new InvalidRecord("schema-invalid for " + topic + ": expected " + type.getSimpleName() + ", got "
                    + (value == null ? "null" : value.getClass().getSimpleName()));
        }
        return type.cast(value);
    }

    private void deadLetter(ConsumerRecord<byte[], byte[]> record, String reason, long now, List<Output> out) {
        metrics.deadLetter();
        LOG.warnf("dead letter from %s-%d@%d: %s", record.topic(), record.partition(), record.offset(), reason);
        out.add(new Output(Topics.DEAD_LETTERS.name(), record.topic(), DeadLetters.of(record.topic(),
                record.partition(), record.offset(), record.key(), record.value(), reason, settings.consumerName(),
                Instant.ofEpochMilli(now))));
    }

    // ------------------------------------------------------------------ rebuild

    /** Replays the committed journal into the projection; returns how many entries it applied. */
    private long replay(Projection projection) {
        try (KafkaConsumer<byte[], byte[]> journal = newConsumer(null)) {
            TopicPartition tp = new TopicPartition(settings.journalTopic(), 0);
            journal.assign(List.of(tp));
            journal.seekToBeginning(List.of(tp));
            long end = journal.endOffsets(List.of(tp)).get(tp); // read_committed: the last stable offset
            long entries = 0;
            List<Output> discarded = new ArrayList<>();
            while (journal.position(tp) < end) {
                for (ConsumerRecord<byte[], byte[]> record : journal.poll(Duration.ofMillis(200))) {
                    JournalEntry entry = JournalEntry.fromBytes(record.value());
                    for (Input input : entry.inputs()) {
                        applyInput(projection, input, discarded);
                    }
                    if (entry.pass()) {
                        try {
                            projection.pass(entry.now(), discarded);
                        } catch (RuntimeException e) {
                            LOG.error("scheduling pass failed during replay", e);
                        }
                    }
                    if (LOG.isDebugEnabled()) {
                        logDecisions("replayed", entry.now(), discarded);
                    }
                    discarded.clear();
                    entries++;
                }
            }
            return entries;
        }
    }

    private void assignInputs(KafkaConsumer<byte[], byte[]> consumer) {
        List<TopicPartition> partitions = new ArrayList<>();
        for (String topic : INPUT_TOPICS) {
            for (PartitionInfo p : consumer.partitionsFor(topic)) {
                partitions.add(new TopicPartition(topic, p.partition()));
            }
        }
        consumer.assign(partitions);
        Map<TopicPartition, OffsetAndMetadata> committed = consumer.committed(Set.copyOf(partitions));
        List<TopicPartition> fromStart = new ArrayList<>();
        for (TopicPartition tp : partitions) {
            OffsetAndMetadata o = committed.get(tp);
            if (o == null) {
                fromStart.add(tp);
            } else {
                consumer.seek(tp, o.offset());
            }
        }
        consumer.seekToBeginning(fromStart);
    }

    private void ensureJournalTopic() {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                settings.bootstrapServers()))) {
            if (admin.listTopics().names().get(30, TimeUnit.SECONDS).contains(settings.journalTopic())) {
                return;
            }
            NewTopic topic = new NewTopic(settings.journalTopic(), Optional.of(1), Optional.empty())
                    .configs(Map.of("cleanup.policy", "delete", "retention.ms", "-1", "max.message.bytes", "16777216"));
            admin.createTopics(List.of(topic)).all().get(30, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            if (!(e.getCause() instanceof TopicExistsException)) {
                throw new IllegalStateException("cannot create the journal topic " + settings.journalTopic(), e);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } catch (java.util.concurrent.TimeoutException e) {
            throw new IllegalStateException("broker unreachable at " + settings.bootstrapServers(), e);
        }
    }

    private KafkaProducer<String, byte[]> newProducer() {
        Map<String, Object> config = new HashMap<>();
        config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, settings.bootstrapServers());
        config.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, settings.transactionalId());
        config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        config.put(ProducerConfig.LINGER_MS_CONFIG, 0);
        config.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, 16 * 1024 * 1024);
        config.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, 30_000);
        // A fenced (zombie) instance must find out quickly rather than block on its next send.
        config.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 10_000);
        config.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000);
        config.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 10_000);
        return new KafkaProducer<>(config, new StringSerializer(), new ByteArraySerializer());
    }

    private KafkaConsumer<byte[], byte[]> newConsumer(String groupId) {
        Map<String, Object> config = new HashMap<>();
        config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, settings.bootstrapServers());
        if (groupId != null) {
            config.put(ConsumerConfig.GROUP_ID_CONFIG, groupId);
        }
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        config.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 500);
        config.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, 16 * 1024 * 1024);
        return new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    /** Debug: one line per job decision or node command, so a replay can be compared with what was committed. */
    private static void logDecisions(String how, long now, List<Output> out) {
        for (Output o : out) {
            String what = switch (o.value()) {
                case JobEvent e -> e.getPayload() instanceof dev.allot.schemas.JobPlaced p
                        ? "JobPlaced " + e.getJobId() + " " + p.getAssignments().stream()
                                .map(a -> a.getNodeId() + a.getGpuIndices()).toList()
                        : e.getPayload().getClass().getSimpleName() + " " + e.getJobId();
                case dev.allot.schemas.NodeCommand c -> c.getPayload() instanceof dev.allot.schemas.StopJob stop
                        ? "StopJob " + stop.getJobId() + " " + stop.getNodeId() + " " + stop.getReason()
                        : c.getPayload() instanceof dev.allot.schemas.StartJob start
                                ? "StartJob " + start.getJobId() + " " + start.getNodeId() + start.getGpuIndices()
                                : null;
                default -> null;
            };
            if (what != null) {
                LOG.debugf("%s at %d: %s", how, now, what);
            }
        }
    }

    // ------------------------------------------------------------------ status

    private void publishStatus(Phase phase, Projection p, long lastPassAt, long entries, long replayMillis) {
        status = new Status(phase, settings.cluster(), p.waitingCount(), p.runningCount(), p.nodeCount(), lastPassAt,
                entries, replayMillis, Map.copyOf(p.runningPlacements()));
    }

    private void setPhase(Phase phase) {
        Status s = status;
        status = new Status(phase, s.cluster(), s.waiting(), s.running(), s.nodes(), s.lastPassAtMillis(),
                s.replayedEntries(), s.replayMillis(), s.runningJobs());
    }

    private static void sleepQuietly(long millis) {
        try {
            Thread.sleep(millis); // back-off before a rebuild, not synchronisation
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
