package dev.allot.nodeagent.kafka;

import dev.allot.edge.KafkaClients;
import dev.allot.nodeagent.AgentReports;
import dev.allot.schemas.DeadLetter;
import dev.allot.schemas.JobEvent;
import dev.allot.schemas.NodeStatus;
import dev.allot.schemas.UsageReported;
import dev.allot.schemas.catalogue.Topics;
import java.time.Instant;
import java.util.Map;
import java.util.UUID;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.jboss.logging.Logger;

/** Publishes the agent's reports: one idempotent producer (acks=all), Avro values through the registry. */
public final class KafkaAgentReports implements AgentReports, AutoCloseable {

    private static final Logger LOG = Logger.getLogger(KafkaAgentReports.class);

    private final KafkaProducer<String, SpecificRecord> producer;

    public KafkaAgentReports(KafkaClients kafka, String clientId) {
        // Reports are facts the scheduler and accounting need (exits, GPU-seconds): ride out a broker outage
        // of up to 10 minutes rather than drop them after the default 2.
        this.producer = kafka.eventProducer(clientId, Map.of(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 600_000));
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

    private void send(String topic, String key, SpecificRecord value) {
        producer.send(new ProducerRecord<>(topic, key, value), (metadata, error) -> {
            if (error != null) {
                LOG.errorf(error, "could not publish %s to %s (key %s)", value.getSchema().getName(), topic, key);
            }
        });
    }

    @Override
    public void close() {
        producer.close(java.time.Duration.ofSeconds(10));
    }
}
