package dev.allot.scheduler;

import dev.allot.schemas.BudgetDefined;
import dev.allot.schemas.BudgetEvent;
import dev.allot.schemas.JobEvent;
import dev.allot.schemas.JobExited;
import dev.allot.schemas.JobRequest;
import dev.allot.schemas.JobSubmitted;
import dev.allot.schemas.NodeCommand;
import dev.allot.schemas.NodeHeartbeat;
import dev.allot.schemas.NodeRegistered;
import dev.allot.schemas.NodeStatus;
import dev.allot.schemas.StartJob;
import dev.allot.schemas.StopJob;
import dev.allot.schemas.catalogue.Topics;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;

/** Builds and sends the events a test plays: budgets, nodes, submissions, agent reports. */
final class Events {
    private final KafkaProducer<String, SpecificRecord> producer;
    final String cluster;

    Events(KafkaProducer<String, SpecificRecord> producer, String cluster) {
        this.producer = producer;
        this.cluster = cluster;
    }

    static String id(String prefix) {
        return prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
    }

    void send(String topic, String key, SpecificRecord value) {
        try {
            producer.send(new ProducerRecord<>(topic, key, value)).get();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    void budget(String path, String parent, double share) {
        send(Topics.BUDGETS.name(), path, new BudgetEvent(UUID.randomUUID().toString(), Instant.now(),
                new BudgetDefined(path, parent, share, Instant.now(), "test", List.of(), List.of(), null)));
    }

    void node(String nodeId, int gpus) {
        send(Topics.NODE_STATUS.name(), nodeId, new NodeStatus(UUID.randomUUID().toString(), Instant.now(), nodeId,
                new NodeRegistered(cluster, gpus, "fake", 1L, "test-agent", null)));
    }

    void heartbeat(String nodeId, List<String> running) {
        send(Topics.NODE_STATUS.name(), nodeId, new NodeStatus(UUID.randomUUID().toString(), Instant.now(), nodeId,
                new NodeHeartbeat(cluster, 1L, running, null)));
    }

    static JobSubmitted job(String jobId, String budget, String cluster, int replicas, int gpus, long minRuntime) {
        return new JobSubmitted(jobId, budget, "test", cluster, replicas, gpus, minRuntime, true, 0,
                List.of("sleep", "600"), Map.of(), Map.of(), null, Instant.now(), null);
    }

    void submit(JobSubmitted job) {
        send(Topics.JOB_REQUESTS.name(), job.getJobId(),
                new JobRequest(UUID.randomUUID().toString(), Instant.now(), job));
    }

    String submit(String budget, int replicas, int gpus, long minRuntime) {
        String id = id("job");
        submit(job(id, budget, cluster, replicas, gpus, minRuntime));
        return id;
    }

    void exited(String jobId, String nodeId, int replica, int exitCode) {
        send(Topics.JOB_EVENTS.name(), jobId, new JobEvent(UUID.randomUUID().toString(), Instant.now(), jobId, null,
                new JobExited(nodeId, replica, exitCode, false)));
    }

    static Object payload(ConsumerRecord<String, ? extends SpecificRecord> r) {
        SpecificRecord v = r.value();
        if (v instanceof JobEvent e) {
            return e.getPayload();
        }
        if (v instanceof NodeCommand c) {
            return c.getPayload();
        }
        if (v instanceof NodeStatus s) {
            return s.getPayload();
        }
        return v;
    }

    static boolean startFor(ConsumerRecord<String, NodeCommand> r, String jobId) {
        return r.value().getPayload() instanceof StartJob s && s.getJobId().equals(jobId);
    }

    static boolean stopFor(ConsumerRecord<String, NodeCommand> r, String jobId) {
        return r.value().getPayload() instanceof StopJob s && s.getJobId().equals(jobId);
    }
}
