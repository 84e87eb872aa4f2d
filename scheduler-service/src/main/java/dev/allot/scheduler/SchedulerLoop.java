package dev.allot.scheduler;

import dev.allot.core.ReplicaPlacement;
import dev.allot.edge.LogThrottle;
import dev.allot.schemas.catalogue.DeadLetters;
import dev.allot.schemas.catalogue.Topic;
import dev.allot.schemas.catalogue.Topics;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.avro.specific.SpecificRecord;
import java.util.Collection;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.Serializer;
import org.jboss.logging.Logger;

/**
 * The scheduler's Kafka loop for one cluster, on a thread of its own: rebuild ({@link Recovery}),
 * then poll → read ({@link InputReader}) → apply ({@link Projection}) → pass → one transaction
 * (commands, decisions, dead letters, input offsets). Plain Kafka clients built by the shared edge
 * ({@link SchedulerClients}), so that what is committed together is exactly what we say.
 *
 * <p>On start the loop fences any older instance ({@code initTransactions} with the cluster's
 * transactional id), rebuilds the projection from the public log (the inputs below the committed
 * offsets and its own decisions), and resumes every input from the committed offsets.
 */
public final class SchedulerLoop implements Runnable {

    private static final Logger LOG = Logger.getLogger(SchedulerLoop.class);
    /** Every topic a step may write. */
    private static final List<Topic<?, ?>> OUTPUTS = List.of(Topics.JOB_EVENTS, Topics.NODE_COMMANDS,
            Topics.NODE_STATUS, Topics.QUEUE_STATUS, Topics.ACCOUNT_DEMAND, Topics.DEAD_LETTERS);
    /** A flood of bad records gets a few lines a minute, not one each (the dead-letters topic has every one). */
    private final LogThrottle deadLetterLines = LogThrottle.perMinute();
    private final LogThrottle behindLines = LogThrottle.perMinute();

    /**
     * STANDBY: a member of the cluster's group without the inputs, waiting to take over; STARTING, REPLAYING:
     * elected, fencing the older instance and rebuilding; RUNNING: active; FENCED: a newer active instance took
     * over (this one stands by again); FAILED: a step failed (it rebuilds); STOPPED.
     */
    public enum Phase { STARTING, STANDBY, REPLAYING, RUNNING, FENCED, FAILED, STOPPED }

    /** What the outside (health, metrics, HTTP, tests) may read; replaced after every step. */
    public record Status(Phase phase, String cluster, int waiting, int running, int nodes, long lastPassAtMillis,
            long rebuiltFromRecords, long rebuildMillis, Map<String, List<ReplicaPlacement>> runningJobs,
            Projection.Gpus gpus) {
        static Status initial(String cluster) {
            return new Status(Phase.STARTING, cluster, 0, 0, 0, -1, 0, 0, Map.of(), Projection.Gpus.NONE);
        }
    }

    private final Settings settings;
    private final LoopMetrics metrics;
    private final SchedulerClients clients;
    private final Serializer<SpecificRecord> serializer;
    private final InputReader reader;
    private final Recovery recovery;
    private volatile boolean stopping;
    private volatile boolean halting;
    private volatile CountDownLatch paused;
    private volatile boolean frozen;
    private volatile int fencings;
    private volatile long activeSince = -1;
    /** Names this instance's terms (the tag on the offsets each commits). */
    private final String instanceId = java.util.UUID.randomUUID().toString();
    private int terms;
    /** The projection of the last term, if it lost the role cleanly: kept in case the role comes straight back. */
    private volatile KeptProjection kept;
    private volatile int keptTerms;
    /**
     * The group the offsets are committed for, by its id only, not this member's generation: a rebalance (a standby
     * joining) must not fail the active instance's commit. The transactional id is the fence (README, "Standby").
     */
    private final ConsumerGroupMetadata groupOnly;
    private volatile Status status;
    private volatile Thread thread;
    private volatile KafkaConsumer<byte[], byte[]> activeConsumer;
    private final CountDownLatch finished = new CountDownLatch(1);
    /** Forward runs of the expected starts, off the loop's thread (StartEstimates); shut down when the loop ends. */
    private final ExecutorService estimatesThread;

    /** A loop on a plaintext broker (tests, benchmarks). */
    public SchedulerLoop(Settings settings, MeterRegistry registry) {
        this(settings, registry, dev.allot.edge.security.KafkaSecurity.PLAINTEXT);
    }

    /** @param security how its clients authenticate (the scheduler-service principal on a secured broker) */
    public SchedulerLoop(Settings settings, MeterRegistry registry, dev.allot.edge.security.KafkaSecurity security) {
        this.settings = settings;
        this.status = Status.initial(settings.cluster());
        this.metrics = new LoopMetrics(registry, settings.cluster(), () -> status);
        this.clients = new SchedulerClients(settings, security);
        this.serializer = clients.valueSerializer();
        this.reader = new InputReader(clients.reader(), settings.cluster());
        this.recovery = new Recovery(settings, clients);
        this.groupOnly = new ConsumerGroupMetadata(settings.groupId());
        this.estimatesThread = StartEstimates.estimatesThread(settings.cluster());
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
        // Avro (the registry serializer) resolves record classes through the context class loader: make it ours
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
                    term();
                } catch (WakeupException e) {
                    if (!stopping) {
                        LOG.warn("unexpected wakeup; joining the cluster's group again", e);
                    }
                } catch (RoleLost e) {
                    LOG.warnf("cluster %s: %s; standing by", settings.cluster(), e.getMessage());
                } catch (RuntimeException e) {
                    if (fenced(e)) {
                        // Another instance became active (this one was dropped from the group while frozen or cut
                        // off): its initTransactions aborted our open transaction. Wait as a standby again.
                        fencings++;
                        kept = null;
                        LOG.errorf("scheduler for cluster %s fenced by a newer active instance (%s); standing by",
                                settings.cluster(), e.toString());
                        setPhase(Phase.FENCED);
                        continue;
                    }
                    if (stopping) {
                        break;
                    }
                    // State may no longer match what was committed: start again from the log (as a new member of
                    // the group: a standby, if there is one, may take the role meanwhile).
                    LOG.error("scheduler loop failed; rebuilding from the log in 1 s", e);
                    setPhase(Phase.FAILED);
                    kept = null;
                    sleepQuietly(1000);
                }
            }
            setPhase(Phase.STOPPED);
        } catch (Error e) {
            // the thread ends: readiness says so, and a standby takes the role once this one stops polling
            LOG.errorf(e, "scheduler loop for cluster %s died", settings.cluster());
            setPhase(Phase.STOPPED);
            throw e;
        } finally {
            estimatesThread.shutdownNow(); // a forward run in flight ends on its own; its figures go nowhere
            finished.countDown();
        }
    }

    /** A newer instance took the cluster's transactional id: this one must not go on. */
    static boolean fenced(Throwable error) {
        return fenced(error, java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>()));
    }

    /**
     * Through causes and suppressed exceptions, each looked at once: the producer's errors refer to each other (a
     * transaction's failure suppressed in the error state it caused, whose cause is that failure), and following
     * them without a record of what was seen overflowed the stack (chaos, 2026-12-06: the loop thread died).
     */
    private static boolean fenced(Throwable error, java.util.Set<Throwable> seen) {
        for (Throwable t = error; t != null && seen.add(t); t = t.getCause()) {
            if (t instanceof ProducerFencedException || t instanceof InvalidProducerEpochException
                    || t instanceof org.apache.kafka.common.errors.FencedInstanceIdException
                    || (t.getMessage() != null && t.getMessage().toLowerCase(java.util.Locale.ROOT).contains("fenced"))) {
                return true;
            }
            for (Throwable s : t.getSuppressed()) {
                if (fenced(s, seen)) {
                    return true;
                }
            }
        }
        return false;
    }

    /** Thrown inside a step by {@link #halt}: the loop ends as a crash would. */
    private static final class Halted extends RuntimeException {
        Halted() {
            super("halted", null, false, false);
        }
    }

    /** The group took the inputs from this instance (or changed them under it): it is no longer active. */
    private static final class RoleLost extends RuntimeException {
        RoleLost(String why) {
            super(why, null, false, false);
        }
    }

    /**
     * Ends the loop as a crash (kill -9) would, for tests of recovery and failover: the next step that writes
     * sends its records but neither commits nor aborts its transaction; the producer is abandoned, and the
     * consumer closed without leaving the group, so the group hands the role on only once the session times out
     * ({@code failoverAfter}). A new active instance's {@code initTransactions} aborts what was left open.
     */
    void halt() {
        halting = true;
    }

    /**
     * Freezes the loop (for tests of a zombie: a process paused, then resumed) inside its next step that writes,
     * after its records are sent and before its commit, until {@link #resume}. Its group membership lapses after
     * {@code stallLimit}, a standby takes over and fences it: the frozen step's commit then fails.
     */
    void pauseBeforeCommit() {
        paused = new CountDownLatch(1);
    }

    /** Whether the loop is frozen by {@link #pauseBeforeCommit}. */
    boolean frozen() {
        return frozen;
    }

    void resume() {
        CountDownLatch latch = paused;
        paused = null;
        if (latch != null) {
            latch.countDown();
        }
    }

    /** How many active terms went on from the projection of the one before, without a rebuild ({@link KeptProjection}). */
    int keptTerms() {
        return keptTerms;
    }

    /** How many times a newer active instance fenced this one. */
    int fencings() {
        return fencings;
    }

    /** Whether the loop's thread has ended (stopped or halted). */
    boolean ended() {
        return finished.getCount() == 0;
    }

    /** When this instance last became active (epoch millis; -1 before). */
    long activeSinceMillis() {
        return activeSince;
    }

    /**
     * One membership of the cluster's group: wait as a standby until the group gives this instance the inputs,
     * then fence any older active instance ({@code initTransactions}), rebuild from the log and schedule until
     * the role is lost, the loop stops, or a step fails.
     */
    private void term() {
        setPhase(Phase.STARTING);
        KafkaConsumer<byte[], byte[]> consumer = clients.inputConsumer();
        KafkaProducer<String, byte[]> producer = null;
        Role role = new Role(consumer);
        boolean halted = false;
        try {
            activeConsumer = consumer;
            consumer.subscribe(InputReader.INPUT_TOPICS.stream().map(Topic::name).toList(), role);
            while (!stopping && consumer.assignment().isEmpty()) {
                consumer.poll(Duration.ofMillis(200)); // heartbeats and rebalances; nothing is fetched while standby
                if (consumer.groupMetadata().generationId() >= 0 && status.phase() != Phase.STANDBY) {
                    setPhase(Phase.STANDBY); // a member of the group (a broker that answers), without the inputs
                }
            }
            if (stopping) {
                return;
            }
            Set<TopicPartition> inputs = Set.copyOf(consumer.assignment());
            role.active = true;
            activeSince = System.currentTimeMillis();
            LOG.infof("cluster %s: this instance is active (%d input partitions)", settings.cluster(), inputs.size());
            setPhase(Phase.STARTING);
            producer = clients.transactionalProducer();
            producer.initTransactions(); // fences an older active instance and aborts its open transaction
            for (Topic<?, ?> output : OUTPUTS) {
                producer.partitionsFor(output.name()); // their metadata now, not in the first decision's commit
            }
            DecisionWriter.samples().forEach(o -> serializer.serialize(o.topic(), o.value())); // their schema ids too
            setPhase(Phase.REPLAYING);
            Map<TopicPartition, OffsetAndMetadata> committed = InputPositions.committed(consumer, inputs);
            String term = instanceId + "/" + (++terms);
            Map<TopicPartition, Long> committedPositions = new HashMap<>();
            Recovery.Rebuilt rebuilt = projectionFor(consumer, committed, committedPositions);
            consumer.resume(inputs);
            publishStatus(Phase.REPLAYING, rebuilt.projection(), -1, rebuilt);
            steps(rebuilt, term, committedPositions, producer, consumer, role);
        } catch (Halted h) {
            halted = true;
            stopping = true;
        } finally {
            activeConsumer = null;
            if (halted) {
                consumer.close(CloseOptions.groupMembershipOperation(CloseOptions.GroupMembershipOperation.REMAIN_IN_GROUP)
                        .withTimeout(Duration.ZERO));
            } else {
                consumer.close();
                if (producer != null) {
                    producer.close(Duration.ofSeconds(5));
                }
            }
        }
    }

    /**
     * The term's projection: the last term's, if it lost the role cleanly and nobody committed since
     * ({@link KeptProjection}), from the positions it had applied; else rebuilt from the log, from the committed
     * offsets. Positions the consumer there and fills {@code committedPositions} (what steps take as committed).
     */
    private Recovery.Rebuilt projectionFor(KafkaConsumer<byte[], byte[]> consumer,
            Map<TopicPartition, OffsetAndMetadata> committed, Map<TopicPartition, Long> committedPositions) {
        KeptProjection k = kept;
        kept = null;
        if (k != null && k.stillTheLog(committed)) {
            Recovery.Rebuilt rebuilt = k.rebuilt();
            rebuilt.projection().notListening(System.currentTimeMillis() - k.lostAtMillis());
            k.applied().forEach(consumer::seek);
            committedPositions.putAll(k.committed());
            keptTerms++;
            metrics.termStarted("kept");
            LOG.infof("cluster %s: the role came back with the offsets this instance committed last: going on from "
                    + "its projection, %d ms after losing the role (no rebuild)", settings.cluster(),
                    System.currentTimeMillis() - k.lostAtMillis());
            return rebuilt;
        }
        if (k != null) {
            LOG.infof("cluster %s: another instance committed since this one lost the role: rebuilding",
                    settings.cluster());
        }
        Recovery.Rebuilt rebuilt = recovery.rebuild(committed);
        InputPositions.seek(consumer, committed);
        committedPositions.putAll(InputPositions.of(consumer));
        metrics.termStarted("rebuilt");
        return rebuilt;
    }

    /**
     * What the group says about this instance's inputs. Newly assigned partitions are paused at once (nothing is
     * fetched before the rebuild has positioned them); partitions taken away, lost, or added while active end the
     * active term.
     */
    private static final class Role implements ConsumerRebalanceListener {
        private final KafkaConsumer<byte[], byte[]> consumer;
        volatile boolean active;
        volatile String lost;

        Role(KafkaConsumer<byte[], byte[]> consumer) {
            this.consumer = consumer;
        }

        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
            if (partitions.isEmpty()) {
                return;
            }
            consumer.pause(partitions);
            if (active) {
                lost = "the group added input partitions " + partitions + " (rebuilding with them)";
            }
        }

        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
            if (!partitions.isEmpty()) {
                lost = "the group revoked the inputs";
            }
        }

        @Override
        public void onPartitionsLost(Collection<TopicPartition> partitions) {
            if (!partitions.isEmpty()) {
                lost = "this instance was dropped from the group (not heard from within failover-after, or a step "
                        + "longer than stall-limit)";
            }
        }

        void check() {
            String why = lost;
            if (why != null) {
                throw new RoleLost(why);
            }
        }
    }

    // ------------------------------------------------------------------ the loop proper

    private void steps(Recovery.Rebuilt rebuilt, String term, Map<TopicPartition, Long> committed,
            KafkaProducer<String, byte[]> producer, KafkaConsumer<byte[], byte[]> consumer, Role role) {
        Projection projection = rebuilt.projection();
        projection.estimateOn(estimatesThread, metrics::estimate);
        long rebuiltAt = System.currentTimeMillis();
        long caughtUpRecords = 0;
        long tickMillis = settings.tick().toMillis();
        long nextTick = 0;
        long lastSnapshot = 0;
        long lastPassAt = -1;
        long offsetsCommittedAt = 0;
        boolean queueChanged = true;
        DemandMeter demand = new DemandMeter(settings.cluster(), settings.demandInterval().toMillis());
        StepCommitter committer = new StepCommitter(producer, serializer, groupOnly, () -> stopping,
                metrics::transactionRetry, System::currentTimeMillis);
        HeartbeatBacklog heartbeatBacklog = new HeartbeatBacklog(Duration.ofSeconds(1), settings.lostAfter().toMillis() / 2);
        Map<TopicPartition, Long> readTo = InputPositions.of(consumer); // the inputs applied to the projection end here
        // Facts first: budgets, nodes, usage and agent reports up to their ends before any new
        // submission, so that a submission is never judged against a tree or cluster not yet read,
        // and before any pass: a job that ended while no instance was active still runs in the
        // rebuilt core until its agent's report is read, and a pass then would preempt or requeue
        // work that is already done.
        List<TopicPartition> requests = new ArrayList<>();
        List<TopicPartition> facts = new ArrayList<>();
        for (TopicPartition tp : consumer.assignment()) {
            (tp.topic().equals(Topics.JOB_REQUESTS.name()) ? requests : facts).add(tp);
        }
        Map<TopicPartition, Long> factsEnd = consumer.endOffsets(facts);
        consumer.pause(requests);
        boolean catchingUp = true;
        long polledAt = 0;
        InputPoll inputs = new InputPoll(consumer, System::nanoTime);
        Phase phase = Phase.REPLAYING;
        while (!stopping) {
            if (catchingUp && factsEnd.entrySet().stream().allMatch(e -> consumer.position(e.getKey()) >= e.getValue())) {
                consumer.resume(requests);
                catchingUp = false;
                nextTick = 0; // the first pass on the caught-up projection, now
                phase = Phase.RUNNING;
                LOG.infof("cluster %s: facts read up to their ends; taking submissions (%d ms and %d records read after "
                        + "the rebuild)", settings.cluster(), System.currentTimeMillis() - rebuiltAt, caughtUpRecords);
                publishStatus(phase, projection, lastPassAt, rebuilt);
            }
            long wait = Math.max(1, Math.min(100, nextTick - System.currentTimeMillis()));
            long beforePoll = System.currentTimeMillis();
            if (polledAt > 0 && beforePoll - polledAt > DEAF_MILLIS) {
                // the last step took that long: heartbeats sent meanwhile are not read yet, nor known to wait
                projection.notListening(beforePoll - polledAt);
            }
            List<ConsumerRecord<byte[], byte[]>> records = inputs.poll(Duration.ofMillis(wait));
            polledAt = System.currentTimeMillis();
            try {
                role.check(); // an instance that is no longer active decides nothing more
            } catch (RoleLost lost) {
                // what was polled is not applied: the projection stands at the previous step's positions
                kept = new KeptProjection(rebuilt, term, new HashMap<>(committed), readTo, polledAt);
                throw lost;
            }
            if (catchingUp) {
                caughtUpRecords += records.size();
            }
            metrics.lag(consumer);
            long now = System.currentTimeMillis();
            long stepBegan = System.nanoTime();
            long passNanos = 0;
            long snapshotNanos = 0;
            long commitNanos = 0;
            long estimateNanos = 0;
            List<Input> applied = new ArrayList<>();
            List<Output> out = new ArrayList<>();
            for (ConsumerRecord<byte[], byte[]> record : records) {
                if (record.value() == null) {
                    continue; // tombstone on a compacted topic
                }
                switch (reader.read(record.topic(), record.value(), now, projection::knowsJob)) {
                    case InputReader.Read.Inputs read -> read.inputs()
                            .forEach(input -> applied.addAll(projection.apply(input, out)));
                    case InputReader.Read.DeadLetter dead -> deadLetter(record, dead.reason(), now, out);
                }
            }
            boolean tick = !catchingUp && now >= nextTick;
            if (tick) {
                nextTick = now + tickMillis;
                List<Input> silent = projection.silentNodes(now);
                long unread = silent.isEmpty() ? 0 : heartbeatBacklog.unread(consumer, now);
                if (unread != 0) {
                    behindLines.log(now, "deferred loss checks", LOG::warn, () -> String.format("cluster %s: %d node(s)"
                            + " silent, but node-status is not read to its end (%s): none is judged unreachable or"
                            + " lost until it is", settings.cluster(), silent.size(), unread == HeartbeatBacklog.UNKNOWN
                                    ? "the broker did not say where it ends" : unread + " records unread"));
                } else {
                    for (Input input : silent) {
                        switch (input) {
                            case Input.NodeLost lost -> LOG.warnf("cluster %s: node %s missed its heartbeats: lost",
                                    settings.cluster(), lost.nodeId());
                            case Input.NodeUnreachable u -> LOG.infof("cluster %s: node %s silent for more than %d ms:"
                                    + " no new work there until it is heard from", settings.cluster(), u.nodeId(),
                                    NodeLiveness.unreachableAfterMillis(settings.lostAfter().toMillis()));
                            default -> {
                            }
                        }
                        applied.addAll(projection.apply(input, out));
                    }
                }
            }
            int decisions = 0;
            if (!catchingUp && (tick || !applied.isEmpty())) {
                long began = System.nanoTime();
                try {
                    Projection.PassResult result = projection.pass(now, out);
                    decisions = result.decisions();
                    passNanos = System.nanoTime() - began;
                    metrics.pass(passNanos, result.byKind());
                } catch (RuntimeException e) {
                    LOG.error("scheduling pass failed", e);
                }
                lastPassAt = now;
            }
            metrics.inputs(applied.size());
            // new expected starts from the estimates thread count as a change: the next snapshot carries them
            queueChanged |= projection.newEstimates() || decisions > 0 || !applied.isEmpty();
            if (tick) {
                demand.sample(now, projection.demandByAccount(), out);
            }
            if (queueChanged && now - lastSnapshot >= settings.snapshotMinInterval().toMillis()) {
                long began = System.nanoTime();
                out.add(new Output(Topics.QUEUE_STATUS.name(), settings.cluster(),
                        projection.snapshot(now, settings.snapshotMaxEntries())));
                snapshotNanos = System.nanoTime() - began;
                lastSnapshot = now;
                queueChanged = false;
            }
            readTo = InputPositions.of(consumer);
            Map<TopicPartition, Long> moved = KeptProjection.moved(readTo, committed);
            boolean changed = !applied.isEmpty() || decisions > 0;
            // A step that writes nothing (heartbeats, mostly) commits its offsets at most once a second: a
            // transaction per poll made commits most of the loop's time at scale. Deferring them is safe: the
            // next commit carries every position that moved, and a successor reads the inputs after the committed
            // offsets live, where they produced no output.
            if (!out.isEmpty() || (!moved.isEmpty() && now - offsetsCommittedAt >= OFFSETS_ONLY_EVERY_MILLIS)) {
                // the positions tagged with the term (a KeptProjection is judged by them): every input's in the term's
                // first commit, then those that moved (a commit of all ~20 wrote ~600 offset records a second to the
                // broker's __consumer_offsets in the peer benchmark's burst)
                commitNanos = commit(committer, producer, out,
                        KeptProjection.offsets(offsetsCommittedAt == 0 ? readTo : moved, term));
                offsetsCommittedAt = now;
                committed.putAll(readTo);
                if (LOG.isDebugEnabled()) {
                    Output.logDecisions(LOG, "committed", now, out);
                }
            }
            if (changed || tick) {
                publishStatus(phase, projection, lastPassAt, rebuilt);
            }
            // After the commit: the step's decisions are out before the core is copied. Only the copy is taken
            // here; the forward run goes to the estimates thread, and a later snapshot carries its figures.
            if (projection.estimatesDue(now) && (projection.waitingCount() > 0 || projection.estimates() == null
                    || !projection.estimates().byJob().isEmpty())) {
                long began = System.nanoTime();
                projection.refreshEstimates(now);
                estimateNanos = System.nanoTime() - began;
                metrics.estimateCopy(estimateNanos);
            }
            long stepNanos = System.nanoTime() - stepBegan;
            if (stepNanos > SLOW_STEP_NANOS) {
                LOG.warnf("cluster %s: a step took %d ms (pass %d, queue snapshot %d, commit %d, expected starts' copy "
                        + "%d; %d records in, inputs %s, records out %s)", settings.cluster(), stepNanos / 1_000_000,
                        passNanos / 1_000_000, snapshotNanos / 1_000_000, commitNanos / 1_000_000,
                        estimateNanos / 1_000_000, records.size(), countBy(applied, i -> i.getClass().getSimpleName()),
                        countBy(out, Output::topic));
            }
        }
    }

    private static <T> Map<String, Integer> countBy(List<T> items, java.util.function.Function<T, String> key) {
        Map<String, Integer> counts = new java.util.TreeMap<>();
        items.forEach(i -> counts.merge(key.apply(i), 1, Integer::sum));
        return counts;
    }

    /** How often a step that writes nothing commits the offsets it read. */
    private static final long OFFSETS_ONLY_EVERY_MILLIS = 1_000;
    /** A step longer than this is logged with where its time went. */
    private static final long SLOW_STEP_NANOS = 1_000_000_000L;
    /** Longer than this between two polls, and the nodes are not held to the time the loop was not reading. */
    private static final long DEAF_MILLIS = 1_000;

    /** One step's transaction; returns how long it took (also the commit metric's figure). */
    private long commit(StepCommitter committer, KafkaProducer<String, byte[]> producer, List<Output> out,
            Map<TopicPartition, OffsetAndMetadata> offsets) {
        long began = System.nanoTime();
        committer.commit(out, offsets, () -> {
            if (halting) {
                producer.flush(); // the records reach the broker inside the open transaction
                throw new Halted();
            }
            CountDownLatch pause = paused;
            if (pause != null) {
                producer.flush();
                frozen = true;
                awaitQuietly(pause);
                frozen = false;
            }
        });
        long nanos = System.nanoTime() - began;
        metrics.transaction(nanos);
        return nanos;
    }

    private void deadLetter(ConsumerRecord<byte[], byte[]> record, String reason, long now, List<Output> out) {
        metrics.deadLetter();
        deadLetterLines.log(now, "dead letters", LOG::warn,
                () -> String.format("dead letter from %s-%d@%d: %s", record.topic(), record.partition(),
                        record.offset(), reason));
        out.add(new Output(Topics.DEAD_LETTERS.name(), record.topic(),
                DeadLetters.of(record, reason, settings.consumerName(), Instant.ofEpochMilli(now))));
    }

    // ------------------------------------------------------------------ status

    private void publishStatus(Phase phase, Projection p, long lastPassAt, Recovery.Rebuilt rebuilt) {
        status = new Status(phase, settings.cluster(), p.waitingCount(), p.runningCount(), p.nodeCount(), lastPassAt,
                rebuilt.records(), rebuilt.millis(), Map.copyOf(p.runningPlacements()), p.gpus());
        long now = System.currentTimeMillis();
        if (now - ratios.atMillis() >= RATIOS_EVERY_MILLIS) {
            ratios = new Ratios(p.nowMillis(), p.usageByAccount());
        }
    }

    /** Every account's ratio as the core counts it, refreshed at most once a second (it walks the tree). */
    public record Ratios(long atMillis, java.util.SortedMap<String, dev.allot.core.explain.AccountUsage> byAccount) {
    }

    private static final long RATIOS_EVERY_MILLIS = 1_000;
    private volatile Ratios ratios = new Ratios(0, java.util.Collections.emptySortedMap());

    public Ratios ratios() {
        return ratios;
    }

    private void setPhase(Phase phase) {
        Status s = status;
        status = new Status(phase, s.cluster(), s.waiting(), s.running(), s.nodes(), s.lastPassAtMillis(),
                s.rebuiltFromRecords(), s.rebuildMillis(), s.runningJobs(), s.gpus());
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await(); // a test's freeze of the loop, not synchronisation
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void sleepQuietly(long millis) {
        try {
            Thread.sleep(millis); // back-off before a rebuild, not synchronisation
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
