package dev.allot.e2e;

import dev.allot.schemas.JobEvent;
import dev.allot.schemas.JobExited;
import dev.allot.schemas.JobStarted;
import dev.allot.schemas.NodeCommand;
import dev.allot.schemas.NodeHeartbeat;
import dev.allot.schemas.NodeRegistered;
import dev.allot.schemas.NodeStatus;
import dev.allot.schemas.StartJob;
import dev.allot.schemas.StopJob;
import dev.allot.schemas.UsageReported;
import dev.allot.schemas.catalogue.Topics;
import dev.allot.testsupport.AllotInfrastructure;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * The scale benchmark's stand-in for node agents when the control plane alone is measured
 * ({@code bin/allot bench --executor fake}): it speaks the agents' protocol on Kafka (NodeRegistered, heartbeats,
 * JobStarted, a usage tile and JobExited for every StartJob, JobExited for a StopJob) and runs nothing, as Armada's
 * fake executor and Kubernetes' kwok do for their scale tests. What it leaves out is the cost of a real process
 * per replica (5 ms of CPU on a quiet 2-core machine, 36-42 ms at the load of a 20,000-job burst, which holds that
 * machine to ~37 jobs a second end to end);
 * the real agent's path is what the default {@code --executor processes} measures. Never part of the tests' proof.
 */
final class FakeExecutor implements AutoCloseable {

    private static final Duration HEARTBEAT_EVERY = Duration.ofSeconds(2);

    private final Map<String, String> clusterOf = new LinkedHashMap<>();
    private final int gpusPerNode;
    private final long epoch = System.currentTimeMillis();
    private final Duration runFor;
    private final KafkaProducer<String, SpecificRecord> producer;
    private final KafkaConsumer<String, NodeCommand> commands;
    private final ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "fake-executor-timers");
        t.setDaemon(true);
        return t;
    });
    private final Thread loop;
    /** Replicas "running": a StopJob for one of them reports its exit as stopped. */
    private final Map<String, Run> running = new ConcurrentHashMap<>();
    final AtomicLong started = new AtomicLong();
    final AtomicLong exited = new AtomicLong();
    /** GPU-seconds reported per cluster, what the accounting-service must come to. */
    final Map<String, java.util.concurrent.atomic.DoubleAdder> reportedGpuSeconds = new ConcurrentHashMap<>();
    /** When the last exit was handed to the producer (nanoTime). */
    volatile long lastExitNanos;
    private volatile boolean closed;

    /**
     * @param nodesByCluster fake nodes per cluster, {@code <cluster>-fake-1..N}
     * @param runFor         how long each replica "runs" before it exits 0 (zero: at once, as {@code true} does)
     */
    FakeExecutor(AllotInfrastructure infra, Map<String, Integer> nodesByCluster, int gpusPerNode, Duration runFor) {
        this.runFor = runFor;
        this.gpusPerNode = gpusPerNode;
        nodesByCluster.forEach((cluster, count) -> {
            for (int i = 1; i <= count; i++) {
                clusterOf.put(cluster + "-fake-" + i, cluster);
            }
        });
        // the agent's producer settings (idempotent, acks=all, linger 1 ms)
        this.producer = infra.clients().eventProducer("fake-executor-" + UUID.randomUUID(), Map.of());
        String group = "fake-executor-" + UUID.randomUUID();
        this.commands = infra.clients().eventConsumer(NodeCommand.class, group,
                Map.of(org.apache.kafka.clients.consumer.ConsumerConfig.GROUP_ID_CONFIG, group,
                        org.apache.kafka.clients.consumer.ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "latest"));
        this.loop = new Thread(this::readCommands, "fake-executor-commands");
        this.loop.setDaemon(true);
    }

    /** Registers every node (one epoch for all), then heartbeats and reads commands until closed. */
    FakeExecutor start() {
        commands.subscribe(Set.of(Topics.NODE_COMMANDS.name()));
        // positioned at the end before any node is announced: no command for these nodes can precede it
        org.awaitility.Awaitility.await().atMost(Duration.ofMinutes(2)).until(() -> {
            commands.poll(Duration.ofMillis(100));
            return !commands.assignment().isEmpty();
        });
        commands.assignment().forEach(commands::position);
        Instant now = Instant.now();
        clusterOf.forEach((node, cluster) -> status(node, NodeRegistered.newBuilder().setCluster(cluster)
                .setGpuCount(gpusPerNode).setGpuModel("fake").setEpoch(epoch).setAgentId("fake-executor")
                .setApiUrl(null).build(), now));
        producer.flush();
        timers.scheduleAtFixedRate(this::heartbeat, HEARTBEAT_EVERY.toMillis(), HEARTBEAT_EVERY.toMillis(),
                TimeUnit.MILLISECONDS);
        loop.start();
        return this;
    }

    private void heartbeat() {
        Map<String, List<String>> jobsOn = new LinkedHashMap<>();
        running.values().forEach(r -> jobsOn.computeIfAbsent(r.start.getNodeId(), n -> new ArrayList<>())
                .add(r.start.getJobId()));
        Instant now = Instant.now();
        clusterOf.forEach((node, cluster) -> status(node, NodeHeartbeat.newBuilder().setCluster(cluster).setEpoch(epoch)
                .setRunningJobs(jobsOn.getOrDefault(node, List.of()).stream().distinct().sorted().toList())
                .setMeanGpuUtilisation(null).build(), now));
    }

    private void readCommands() {
        while (!closed) {
            try {
                for (ConsumerRecord<String, NodeCommand> r : commands.poll(Duration.ofMillis(50))) {
                    Object payload = r.value().getPayload();
                    if (payload instanceof StartJob start && clusterOf.containsKey(start.getNodeId())
                            && start.getNodeEpoch() == epoch) {
                        started(start);
                    } else if (payload instanceof StopJob stop && clusterOf.containsKey(stop.getNodeId())
                            && stop.getNodeEpoch() == epoch) {
                        stopped(stop);
                    }
                }
            } catch (org.apache.kafka.common.errors.WakeupException e) {
                return;
            }
        }
    }

    private void started(StartJob start) {
        Instant at = Instant.now();
        String key = replica(start.getNodeId(), start.getJobId(), start.getReplicaIndex());
        running.put(key, new Run(start, at));
        job(start.getJobId(), JobStarted.newBuilder().setNodeId(start.getNodeId()).setNodeEpoch(epoch)
                .setReplicaIndex(start.getReplicaIndex()).setPid(null).build(), at);
        started.incrementAndGet();
        if (runFor.isZero()) {
            ended(key);
        } else {
            timers.schedule(() -> ended(key), runFor.toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    /** Every replica of the job on the node exits as stopped (143, as after a SIGTERM). */
    private void stopped(StopJob stop) {
        String prefix = stop.getNodeId() + "/" + stop.getJobId() + "/";
        for (String key : List.copyOf(running.keySet())) {
            Run run = key.startsWith(prefix) ? running.remove(key) : null;
            if (run != null) {
                exit(run, 143, true);
            }
        }
    }

    private void ended(String key) {
        Run run = running.remove(key);
        if (run != null) {
            exit(run, 0, false);
        }
    }

    /** The last usage tile, then JobExited: the agent's order. */
    private void exit(Run replica, int code, boolean stopped) {
        StartJob run = replica.start;
        // whole milliseconds, as the schema carries them: GPU-seconds beyond gpus x interval are refused as invalid
        Instant from = replica.at.truncatedTo(java.time.temporal.ChronoUnit.MILLIS);
        Instant to = Instant.now().truncatedTo(java.time.temporal.ChronoUnit.MILLIS);
        int gpus = run.getGpuIndices().size();
        if (to.isAfter(from)) {
            double gpuSeconds = gpus * Duration.between(from, to).toNanos() / 1e9;
            producer.send(new ProducerRecord<>(Topics.USAGE.name(), run.getJobId(), UsageReported.newBuilder()
                    .setJobId(run.getJobId()).setAccount(run.getBudget()).setCluster(run.getCluster())
                    .setNodeId(run.getNodeId()).setGpus(gpus).setIntervalStart(from).setIntervalEnd(to)
                    .setGpuSeconds(gpuSeconds).setChargeMode(run.getChargeMode()).setMeanGpuUtilisation(null).build()));
            reportedGpuSeconds.computeIfAbsent(run.getCluster(), c -> new java.util.concurrent.atomic.DoubleAdder())
                    .add(gpuSeconds);
        }
        job(run.getJobId(), JobExited.newBuilder().setNodeId(run.getNodeId()).setReplicaIndex(run.getReplicaIndex())
                .setExitCode(code).setStopped(stopped).build(), to);
        exited.incrementAndGet();
        lastExitNanos = System.nanoTime();
    }

    private void job(String jobId, Object payload, Instant at) {
        producer.send(new ProducerRecord<>(Topics.JOB_EVENTS.name(), jobId, JobEvent.newBuilder()
                .setEventId(UUID.randomUUID().toString()).setOccurredAt(at).setJobId(jobId).setStateAfter(null)
                .setPayload(payload).build()));
    }

    private void status(String nodeId, Object payload, Instant at) {
        producer.send(new ProducerRecord<>(Topics.NODE_STATUS.name(), nodeId, NodeStatus.newBuilder()
                .setEventId(UUID.randomUUID().toString()).setOccurredAt(at).setNodeId(nodeId).setPayload(payload)
                .build()));
    }

    private record Run(StartJob start, Instant at) {
    }

    private static String replica(String node, String job, int index) {
        return node + "/" + job + "/" + index;
    }

    @Override
    public void close() throws InterruptedException {
        closed = true;
        commands.wakeup();
        loop.join(Duration.ofSeconds(10));
        timers.shutdownNow();
        producer.close(Duration.ofSeconds(10));
        commands.close(Duration.ofSeconds(5));
    }
}
