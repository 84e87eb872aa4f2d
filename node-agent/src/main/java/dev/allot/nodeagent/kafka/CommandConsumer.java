package dev.allot.nodeagent.kafka;

import dev.allot.nodeagent.AgentMetrics;
import dev.allot.nodeagent.AgentReports;
import dev.allot.nodeagent.NodeAgent;
import dev.allot.schemas.NodeCommand;
import dev.allot.schemas.catalogue.DeadLetters;
import dev.allot.schemas.catalogue.EventSerdes;
import dev.allot.schemas.catalogue.Topics;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import io.apicurio.registry.serde.avro.AvroKafkaDeserializer;
import io.apicurio.registry.serde.avro.AvroSerdeConfig;
import org.apache.avro.generic.GenericRecord;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.Deserializer;
import org.jboss.logging.Logger;

/**
 * Reads node-commands for the hosted nodes.
 *
 * <p>No consumer group: the agent assigns itself every partition and starts at the end of the log, as it
 * was when the agent started and <em>before</em> it registered its new epochs. Every command meant for
 * this incarnation carries the new epoch, which the scheduler can only know from that registration, so
 * nothing meant for it is skipped, and older commands (stale by epoch anyway) are never replayed. Other
 * nodes' records are skipped by key without decoding. Records keyed for a hosted node (or without a key)
 * that cannot be decoded into a NodeCommand go to dead-letters with the reason; the loop goes on.
 */
public final class CommandConsumer implements Runnable, AutoCloseable {

    private static final Logger LOG = Logger.getLogger(CommandConsumer.class);
    public static final String CONSUMER_NAME = "node-agent";

    private final KafkaConsumer<byte[], byte[]> consumer;
    private final Deserializer<Object> deserializer;
    private final NodeCommandDecoder decoder = new NodeCommandDecoder();
    private final NodeAgent agent;
    private final AgentReports reports;
    private final AgentMetrics metrics;
    private final String topic = Topics.NODE_COMMANDS.name();
    private final Map<String, ExecutorService> lanes = new ConcurrentHashMap<>();
    private volatile boolean running = true;
    private volatile boolean positioned;
    private volatile Thread thread;

    public CommandConsumer(String bootstrapServers, String registryUrl, String clientId, NodeAgent agent,
                           AgentReports reports, AgentMetrics metrics) {
        Map<String, Object> config = new HashMap<>();
        config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        config.put(ConsumerConfig.CLIENT_ID_CONFIG, clientId);
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "latest");
        this.consumer = new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer());
        // Generic reader: the registry deserializer only frames the record and finds the writer schema; the
        // NodeCommandDecoder resolves it against our NodeCommand (see there why).
        Map<String, Object> serde = new HashMap<>(EventSerdes.registryConfig(registryUrl));
        serde.put(AvroSerdeConfig.USE_SPECIFIC_AVRO_READER, false);
        AvroKafkaDeserializer<Object> generic = new AvroKafkaDeserializer<>();
        generic.configure(serde, false);
        this.deserializer = generic;
        this.agent = agent;
        this.reports = reports;
        this.metrics = metrics;
    }

    /** Assigns every partition and fixes the start at the current end. Call before registering. */
    public void positionAtEnd() {
        List<TopicPartition> partitions = consumer.partitionsFor(topic, Duration.ofSeconds(30)).stream()
                .map(info -> new TopicPartition(topic, info.partition()))
                .toList();
        if (partitions.isEmpty()) {
            throw new IllegalStateException("topic " + topic + " does not exist");
        }
        consumer.assign(partitions);
        consumer.seekToEnd(partitions);
        partitions.forEach(tp -> consumer.position(tp, Duration.ofSeconds(30))); // resolve the lazy seek now
        positioned = true;
    }

    /** Decodes a command built here, to load and compile the decoding path before the first real one. */
    public void warmUp() {
        try {
            NodeCommand sample = NodeCommand.newBuilder().setEventId("warm-up").setOccurredAt(Instant.now())
                    .setPayload(dev.allot.schemas.StopJob.newBuilder().setJobId("warm-up").setNodeId("warm-up")
                            .setNodeEpoch(0).setReason(dev.allot.schemas.StopReason.PREEMPTED).build())
                    .build();
            java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
            out.write(new byte[5]); // wire header, as the registry serializer writes it
            org.apache.avro.io.BinaryEncoder encoder = org.apache.avro.io.EncoderFactory.get().binaryEncoder(out, null);
            new org.apache.avro.specific.SpecificDatumWriter<>(NodeCommand.class).write(sample, encoder);
            encoder.flush();
            decoder.decode(NodeCommand.getClassSchema(), out.toByteArray());
        } catch (Exception e) {
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
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                    process(record);
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

    void process(ConsumerRecord<byte[], byte[]> record) {
        String key = record.key() == null ? null : new String(record.key(), StandardCharsets.UTF_8);
        if (key != null && !agent.hosts(key)) {
            return; // another agent's node
        }
        NodeCommand command;
        long receivedAt = System.currentTimeMillis();
        try {
            if (record.value() == null) {
                throw new IllegalArgumentException("null value");
            }
            Object value = deserializer.deserialize(topic, record.value());
            if (!(value instanceof GenericRecord generic)) {
                throw new IllegalArgumentException("not an Avro record: "
                        + (value == null ? "null" : value.getClass().getName()));
            }
            command = decoder.decode(generic.getSchema(), record.value());
            if (LOG.isDebugEnabled()) {
                LOG.debugf("command %s received %d ms after it was produced, decoded in %d ms", command.getEventId(),
                        receivedAt - record.timestamp(), System.currentTimeMillis() - receivedAt);
            }
        } catch (RuntimeException e) {
            deadLetter(record, "undecodable node command: " + DeadLetters.reasonOf(e));
            return;
        }
        // One lane (thread) per node: a node's commands run in log order, nodes do not wait for each other
        // (starting a process costs milliseconds; an agent hosting several fake nodes starts them in parallel).
        String lane = key != null ? key : nodeOf(command);
        lanes.computeIfAbsent(lane, this::newLane).execute(() -> {
            try {
                NodeAgent.Outcome outcome = agent.handle(command);
                LOG.debugf("command %s at %s-%d@%d: %s", command.getEventId(), topic, record.partition(),
                        record.offset(), outcome);
            } catch (RuntimeException e) {
                deadLetter(record, "node command could not be executed: " + DeadLetters.reasonOf(e));
            }
        });
    }

    private static String nodeOf(NodeCommand command) {
        Object payload = command.getPayload();
        if (payload instanceof dev.allot.schemas.StartJob start) {
            return start.getNodeId();
        }
        if (payload instanceof dev.allot.schemas.StopJob stop) {
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
        LOG.warnf("dead-lettering %s-%d@%d: %s", topic, record.partition(), record.offset(), reason);
        metrics.deadLettered();
        reports.deadLetter(DeadLetters.of(topic, record.partition(), record.offset(), record.key(), record.value(),
                reason, CONSUMER_NAME, Instant.now()));
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
