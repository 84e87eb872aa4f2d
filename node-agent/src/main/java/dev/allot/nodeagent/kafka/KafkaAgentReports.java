package dev.allot.nodeagent.kafka;

import dev.allot.edge.KafkaClients;
import dev.allot.nodeagent.AgentReports;
import dev.allot.schemas.DeadLetter;
import dev.allot.schemas.JobEvent;
import dev.allot.schemas.NodeStatus;
import dev.allot.schemas.UsageReported;
import dev.allot.schemas.catalogue.Topics;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.UUID;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.SerializationException;
import org.jboss.logging.Logger;

/** Publishes the agent's reports: one idempotent producer (acks=all), Avro values through the registry. */
public final class KafkaAgentReports implements AgentReports, AutoCloseable {

    private static final Logger LOG = Logger.getLogger(KafkaAgentReports.class);

    /** How long a report waits before it is serialised again when the registry did not answer. */
    static final Duration SERIALISE_AGAIN_AFTER = Duration.ofSeconds(5);

    private final Producer<String, SpecificRecord> producer;
    private final Duration serialiseAgainAfter;
    private volatile boolean closed;

    public KafkaAgentReports(KafkaClients kafka, String clientId) {
        // Reports are facts the scheduler and accounting need (exits, GPU-seconds): ride out a broker outage
        // of up to 10 minutes rather than drop them after the default 2.
        this(kafka.eventProducer(clientId, Map.of(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 600_000)),
                SERIALISE_AGAIN_AFTER);
    }

    KafkaAgentReports(Producer<String, SpecificRecord> producer, Duration serialiseAgainAfter) {
        this.producer = producer;
        this.serialiseAgainAfter = serialiseAgainAfter;
    }

    @Override
    public void nodeStatus(String nodeId, Object payload, Instant occurredAt) {
        send(Topics.NODE_STATUS.name(), nodeId, NodeStatus.newBuilder()
                .setEventId(UUID.randomUUID().toString())
                .setOccurredAt(occurredAt)
                .setNodeId(nodeId)
                .setPayload(payload)
                .build());
    }

    @Override
    public void jobEvent(String eventId, String jobId, Object payload, Instant occurredAt) {
        send(Topics.JOB_EVENTS.name(), jobId, JobEvent.newBuilder()
                .setEventId(eventId)
                .setOccurredAt(occurredAt)
                .setJobId(jobId)
                .setStateAfter(null)
                .setPayload(payload)
                .build());
    }

    @Override
    public void usage(UsageReported usage) {
        send(Topics.USAGE.name(), usage.getJobId(), usage);
    }

    @Override
    public void deadLetter(DeadLetter deadLetter) {
        send(Topics.DEAD_LETTERS.name(), deadLetter.getSourceTopic(), deadLetter);
    }

    @Override
    public void flush() {
        producer.flush();
    }

    /**
     * Sends one report. A report whose schema the registry did not register (each call tried 3 x 10 s) is serialised
     * again every few seconds until it is, not dropped: an exit or GPU-seconds lost would leave a job running in the
     * scheduler's view, or a team's usage short, for good. The calling thread waits meanwhile, as it would for a
     * broker that does not answer; closing the reports gives up.
     */
    private void send(String topic, String key, SpecificRecord value) {
        ProducerRecord<String, SpecificRecord> record = new ProducerRecord<>(topic, key, value);
        for (int attempt = 1; ; attempt++) {
            try {
                producer.send(record, (metadata, error) -> {
                    if (error != null) {
                        LOG.errorf(error, "could not publish %s to %s (key %s)", value.getSchema().getName(), topic, key);
                    }
                });
                return;
            } catch (SerializationException e) {
                if (closed) {
                    throw e;
                }
                LOG.errorf(e, "could not serialise %s for %s (key %s), attempt %d; trying again in %s",
                        value.getSchema().getName(), topic, key, attempt, serialiseAgainAfter);
                try {
                    Thread.sleep(serialiseAgainAfter.toMillis());
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    throw e;
                }
            }
        }
    }

    @Override
    public void close() {
        closed = true;
        producer.close(Duration.ofSeconds(10));
    }
}
