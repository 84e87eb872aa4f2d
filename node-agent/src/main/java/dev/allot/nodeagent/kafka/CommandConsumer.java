package dev.allot.nodeagent.kafka;

import dev.allot.edge.EventReader;
import dev.allot.edge.InvalidRecord;
import dev.allot.edge.KafkaClients;
import dev.allot.edge.LogThrottle;
import dev.allot.edge.Redelivery;
import dev.allot.edge.RegistryUnavailable;
import dev.allot.nodeagent.AgentMetrics;
import dev.allot.nodeagent.AgentReports;
import dev.allot.nodeagent.NodeAgent;
import dev.allot.schemas.NodeCommand;
import dev.allot.schemas.StartJob;
import dev.allot.schemas.StopJob;
import dev.allot.schemas.StopReason;
import dev.allot.schemas.catalogue.DeadLetters;
import dev.allot.schemas.catalogue.Topics;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.jboss.logging.Logger;

/**
 * Reads node-commands for the hosted nodes.
 *
 * <p>No consumer group: the agent assigns itself every partition and starts at the end of the log, as it
 * was when the agent started and <em>before</em> it registered its new epochs. Every command meant for
 * this incarnation carries the new epoch, which the scheduler can only know from that registration, so
 * nothing meant for it is skipped, and older commands (stale by epoch anyway) are never replayed. A node that
 * keeps its epoch across a restart (re-adoption) is read from where the earlier run stopped instead: how far each
 * node's commands were handled (or dead-lettered) is kept in the state dir after each one, so the commands sent
 * while no agent ran are carried out, and none is carried out or dead-lettered twice. Other
 * nodes' records are skipped by key without decoding. Records keyed for a hosted node (or without a key)
 * that cannot be decoded into a NodeCommand go to dead-letters with the reason; the loop goes on. A command
 * that cannot be read because the registry does not answer is read again after a pause, never dead-lettered.
 */
public final class CommandConsumer implements Runnable, AutoCloseable {

    private static final Logger LOG = Logger.getLogger(CommandConsumer.class);
    public static final String CONSUMER_NAME = "node-agent";

    private static final Duration RETRY_PAUSE = Duration.ofSeconds(1);

    /** A flood of bad records gets a few lines a minute, not one each (the dead-letters topic has every one). */
    private final LogThrottle deadLetterLines = LogThrottle.perMinute();

    private final KafkaConsumer<byte[], byte[]> consumer;
    private final EventReader reader;
    private final NodeAgent agent;
    private final AgentReports reports;
    private final AgentMetrics metrics;
    private final String topic = Topics.NODE_COMMANDS.name();
    private final dev.allot.nodeagent.StateDir state;
    /** Per hosted node and partition: the offset its next command is read from (earlier ones were handled). */
    private final Map<String, Map<Integer, Long>> positions = new ConcurrentHashMap<>();
    private final Map<String, ExecutorService> lanes = new ConcurrentHashMap<>();
    private volatile boolean running = true;
    private volatile boolean positioned;
    private volatile Thread thread;

    public CommandConsumer(KafkaClients kafka, String clientId, NodeAgent agent, AgentReports reports,
                           AgentMetrics metrics) {
        this(kafka, clientId, agent, reports, metrics, null);
    }

    /** @param state where each node's position is kept across restarts (null: nowhere, every start is fresh) */
    public CommandConsumer(KafkaClients kafka, String clientId, NodeAgent agent, AgentReports reports,
                           AgentMetrics metrics, dev.allot.nodeagent.StateDir state) {
        this.state = state;
        // "latest": should the position ever be lost (out of range), never replay old commands.
        this.consumer = kafka.consumer(clientId, Map.of(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "latest"));
        this.reader = kafka.reader();
        this.agent = agent;
        this.reports = reports;
        this.metrics = metrics;
    }

    /** Assigns every partition and fixes the start at the current end. Call before registering. */
    public void positionAtEnd() {
        position(java.util.Set.of());
    }

    /**
     * Assigns every partition and fixes where each hosted node's commands are read from: for a node in
     * {@code resumed} (it keeps its epoch) where the earlier run stopped, as kept in the state dir; for the others
     * the current end. Each partition is read from the earliest of these; a node's records before its own
     * position are skipped. Call before registering.
     */
    public void position(java.util.Set<String> resumed) {
        List<TopicPartition> partitions = consumer.partitionsFor(topic, Duration.ofSeconds(30)).stream()
                .map(info -> new TopicPartition(topic, info.partition()))
                .toList();
        if (partitions.isEmpty()) {
            throw new IllegalStateException("topic " + topic + " does not exist");
        }
        consumer.assign(partitions);
        Map<TopicPartition, Long> ends = consumer.endOffsets(partitions, Duration.ofSeconds(30));
        Map<Integer, Long> start = new java.util.HashMap<>();
        for (dev.allot.nodeagent.HostedNode node : agent.nodes()) {
            Map<Integer, Long> saved = resumed.contains(node.nodeId()) && state != null
                    ? state.commandPositions(node.nodeId()) : Map.of();
            Map<Integer, Long> own = new java.util.TreeMap<>();
            for (TopicPartition tp : partitions) {
                long end = ends.get(tp);
                // never past the end (a log deleted and made again), never before what the log still holds
                long from = Math.min(saved.getOrDefault(tp.partition(), end), end);
                own.put(tp.partition(), from);
                start.merge(tp.partition(), from, Math::min);
            }
            positions.put(node.nodeId(), own);
            save(node.nodeId(), own);
            if (!saved.isEmpty()) {
                LOG.infof("node %s keeps its epoch: its commands are read from %s (the log ends at %s)", node.nodeId(),
                        own, ends);
            }
        }
        for (TopicPartition tp : partitions) {
            consumer.seek(tp, start.getOrDefault(tp.partition(), ends.get(tp)));
        }
        partitions.forEach(tp -> consumer.position(tp, Duration.ofSeconds(30))); // resolve the lazy seek now
        positioned = true;
    }

    /** The node's commands up to {@code offset} of {@code partition} are handled (or dead-lettered). */
    private void handled(String nodeId, int partition, long offset) {
        Map<Integer, Long> own = positions.get(nodeId);
        if (own == null) {
            return;
        }
        synchronized (own) {
            if (offset + 1 > own.getOrDefault(partition, 0L)) {
                own.put(partition, offset + 1);
                save(nodeId, own);
            }
        }
    }

    /** False when the node's earlier run already handled the record (it is read again for another node). */
    private boolean due(String nodeId, ConsumerRecord<byte[], byte[]> record) {
        Map<Integer, Long> own = positions.get(nodeId);
        return own == null || record.offset() >= own.getOrDefault(record.partition(), 0L);
    }

    private void save(String nodeId, Map<Integer, Long> own) {
        if (state == null) {
            return;
        }
        try {
            state.recordCommandPositions(nodeId, own);
        } catch (RuntimeException e) {
            LOG.warnf(e, "could not keep the command position of %s; a restart re-adopting it may repeat commands",
                    nodeId);
        }
    }

    /** Decodes a command built here, to load and compile the decoding path before the first real one. */
    public void warmUp() {
        try {
            reader.warmUp(NodeCommand.newBuilder().setEventId("warm-up").setOccurredAt(Instant.now())
                    .setPayload(StopJob.newBuilder().setJobId("warm-up").setNodeId("warm-up")
                            .setNodeEpoch(0).setReason(StopReason.PREEMPTED).build())
                    .build());
        } catch (RuntimeException e) {
            LOG.debugf("warm-up decode failed: %s", e.toString());
        }
    }

    public boolean alive() {
        Thread t = thread;
        return positioned && t != null && t.isAlive() && running;
    }

    @Override
    public void run() {
        thread = Thread.currentThread();
        try {
            while (running) {
                ConsumerRecords<byte[], byte[]> batch = consumer.poll(Duration.ofMillis(200));
                metrics.lag(consumer);
                for (ConsumerRecord<byte[], byte[]> record : batch) {
                    try {
                        process(record);
                    } catch (RegistryUnavailable e) {
                        // not the command's fault: read it again, after a pause, rather than dead-letter it
                        LOG.warnf("cannot read %s-%d@%d yet: %s; retrying", topic, record.partition(),
                                record.offset(), e.getMessage());
                        Redelivery.seekBack(consumer, batch, record);
                        pause(RETRY_PAUSE);
                        break;
                    }
                }
            }
        } catch (WakeupException e) {
            if (running) {
                throw e;
            }
        } catch (RuntimeException e) {
            LOG.error("the node-commands loop stopped", e);
            running = false;
        } finally {
            consumer.close(Duration.ofSeconds(5));
        }
    }

    /** @throws RegistryUnavailable the command could not be read yet; the caller reads it again later */
    void process(ConsumerRecord<byte[], byte[]> record) {
        String key = record.key() == null ? null : new String(record.key(), StandardCharsets.UTF_8);
        if (key != null && !agent.hosts(key)) {
            return; // another agent's node
        }
        if (key != null && !due(key, record)) {
            return; // handled by the run before a restart
        }
        NodeCommand command;
        long receivedAt = System.currentTimeMillis();
        try {
            command = reader.read(Topics.NODE_COMMANDS, record.value());
            if (LOG.isDebugEnabled()) {
                LOG.debugf("command %s received %d ms after it was produced, decoded in %d ms", command.getEventId(),
                        receivedAt - record.timestamp(), System.currentTimeMillis() - receivedAt);
            }
        } catch (InvalidRecord e) {
            deadLetter(record, "undecodable node command: " + DeadLetters.reasonOf(e));
            if (key != null) {
                // in the node's lane, after the commands before it: its position never passes an unhandled one
                lanes.computeIfAbsent(key, this::newLane).execute(() -> handled(key, record.partition(), record.offset()));
            }
            return;
        }
        // One lane (thread) per node: a node's commands run in log order, nodes do not wait for each other
        // (starting a process costs milliseconds; an agent hosting several fake nodes starts them in parallel).
        String lane = key != null ? key : nodeOf(command);
        if (key == null && !due(lane, record)) {
            return;
        }
        lanes.computeIfAbsent(lane, this::newLane).execute(() -> {
            try {
                NodeAgent.Outcome outcome = agent.handle(command);
                LOG.debugf("command %s at %s-%d@%d: %s", command.getEventId(), topic, record.partition(),
                        record.offset(), outcome);
            } catch (RuntimeException e) {
                deadLetter(record, "node command could not be executed: " + DeadLetters.reasonOf(e));
            }
            handled(lane, record.partition(), record.offset());
        });
    }

    private static String nodeOf(NodeCommand command) {
        Object payload = command.getPayload();
        if (payload instanceof StartJob start) {
            return start.getNodeId();
        }
        if (payload instanceof StopJob stop) {
            return stop.getNodeId();
        }
        return "?";
    }

    private ExecutorService newLane(String nodeId) {
        return Executors.newSingleThreadExecutor(runnable -> {
            Thread thread = new Thread(runnable, "allot-agent-node-" + nodeId);
            thread.setDaemon(true);
            return thread;
        });
    }

    private void deadLetter(ConsumerRecord<byte[], byte[]> record, String reason) {
        deadLetterLines.log(System.currentTimeMillis(), "dead letters", LOG::warn,
                () -> String.format("dead-lettering %s-%d@%d: %s", topic, record.partition(), record.offset(), reason));
        metrics.deadLettered();
        reports.deadLetter(DeadLetters.of(record, reason, CONSUMER_NAME, Instant.now()));
    }

    private static void pause(Duration duration) {
        try {
            Thread.sleep(duration.toMillis()); // back-off before asking the registry again, not synchronisation
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        running = false;
        consumer.wakeup();
        lanes.values().forEach(ExecutorService::shutdown);
        for (ExecutorService lane : lanes.values()) {
            try {
                lane.awaitTermination(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
