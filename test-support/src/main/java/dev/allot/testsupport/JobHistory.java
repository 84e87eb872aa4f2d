package dev.allot.testsupport;

import dev.allot.schemas.ChargeMode;
import dev.allot.schemas.GpuAssignment;
import dev.allot.schemas.JobAccepted;
import dev.allot.schemas.JobCompleted;
import dev.allot.schemas.JobEvent;
import dev.allot.schemas.JobExited;
import dev.allot.schemas.JobPlaced;
import dev.allot.schemas.JobRequest;
import dev.allot.schemas.JobStarted;
import dev.allot.schemas.JobState;
import dev.allot.schemas.JobSubmitted;
import dev.allot.schemas.NodeRegistered;
import dev.allot.schemas.NodeStatus;
import dev.allot.schemas.UsageReported;
import dev.allot.schemas.catalogue.Topics;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.IntConsumer;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * Writes a cluster's history to the catalogue topics as the services would have left it, for restart benchmarks:
 * nodes of 8 GPUs registered under epoch 1, then one single-GPU job per second from {@code t0}, each submitted,
 * accepted, placed, started, charged 0.5 GPU-seconds and completed, except the last {@code running}, which stay
 * running on GPUs of their own (from the first node's GPU 0 on). Budgets are the caller's.
 */
public final class JobHistory {

    /** Records per finished job: request, accepted, placed, started, usage, exited, completed. */
    public static final int RECORDS_PER_FINISHED_JOB = 7;
    public static final double GPU_SECONDS_PER_FINISHED_JOB = 0.5;

    private final KafkaProducer<String, SpecificRecord> producer;
    private final String cluster;
    private final String team;
    private final int nodes;

    public JobHistory(KafkaProducer<String, SpecificRecord> producer, String cluster, String team, int nodes) {
        this.producer = producer;
        this.cluster = cluster;
        this.team = team;
        this.nodes = nodes;
    }

    public static String jobId(String cluster, int i) {
        return cluster + "-j" + i;
    }

    /** Registers the nodes ({@code <cluster>-n<i>}) at {@code t0}. */
    public void registerNodes(long t0) {
        for (int n = 0; n < nodes; n++) {
            String node = cluster + "-n" + n;
            send(Topics.NODE_STATUS.name(), node, new NodeStatus(UUID.randomUUID().toString(),
                    Instant.ofEpochMilli(t0), node, new NodeRegistered(cluster, 8, "fake", 1L, "bench", null)));
        }
    }

    /** Writes {@code jobs} jobs, the last {@code running} of them still running; {@code progress} hears each job. */
    public void writeJobs(long t0, int jobs, int running, IntConsumer progress) {
        for (int i = 0; i < jobs; i++) {
            String id = jobId(cluster, i);
            long at = t0 + i * 1000L;
            boolean stillRunning = i >= jobs - running;
            int slot = stillRunning ? i - (jobs - running) : i % (nodes * 8);
            String node = cluster + "-n" + slot / 8;
            send(Topics.JOB_REQUESTS.name(), id, new JobRequest(UUID.randomUUID().toString(), Instant.ofEpochMilli(at),
                    new JobSubmitted(id, team, "bench", cluster, 1, 1, 60L, true, 0, List.of("true"), Map.of(),
                            Map.of(), null, Instant.ofEpochMilli(at), null)));
            job(id, at, JobState.WAITING, JobAccepted.newBuilder().setBudget(team).setCluster(cluster)
                    .setChargeMode(ChargeMode.ALLOCATED).setQueuedAt(Instant.ofEpochMilli(at)).setReplicas(1)
                    .setGpusPerReplica(1).setMinRuntimeSeconds(60).setResumable(true).build());
            job(id, at + 1, JobState.RUNNING, new JobPlaced(cluster, team,
                    List.of(new GpuAssignment(node, 1L, 0, List.of(slot % 8))), ChargeMode.ALLOCATED,
                    Instant.ofEpochMilli(at + 60_001), 1, "free GPUs", false));
            job(id, at + 2, null, new JobStarted(node, 1L, 0, 1000L + i));
            if (!stillRunning) {
                long end = at + 2 + (long) (GPU_SECONDS_PER_FINISHED_JOB * 1000);
                send(Topics.USAGE.name(), id, new UsageReported(id, team, cluster, node, 1,
                        Instant.ofEpochMilli(at + 2), Instant.ofEpochMilli(end), GPU_SECONDS_PER_FINISHED_JOB,
                        ChargeMode.ALLOCATED, null));
                job(id, end, null, new JobExited(node, 0, 0, false));
                job(id, end, JobState.COMPLETED, new JobCompleted(GPU_SECONDS_PER_FINISHED_JOB));
            }
            progress.accept(i + 1);
        }
        producer.flush();
    }

    private void job(String id, long at, JobState after, Object payload) {
        send(Topics.JOB_EVENTS.name(), id, new JobEvent(UUID.randomUUID().toString(), Instant.ofEpochMilli(at), id,
                after, payload));
    }

    private void send(String topic, String key, SpecificRecord value) {
        producer.send(new ProducerRecord<>(topic, key, value));
    }
}
