package dev.allot.scheduler;

import dev.allot.edge.EventReader;
import dev.allot.edge.InvalidRecord;
import dev.allot.edge.KafkaClients;
import dev.allot.schemas.JobAccepted;
import dev.allot.schemas.JobCancelled;
import dev.allot.schemas.JobCheckpointed;
import dev.allot.schemas.JobEvent;
import dev.allot.schemas.JobExited;
import dev.allot.schemas.JobFailed;
import dev.allot.schemas.JobLost;
import dev.allot.schemas.JobPlaced;
import dev.allot.schemas.JobPreempted;
import dev.allot.schemas.JobRejected;
import dev.allot.schemas.JobRequeued;
import dev.allot.schemas.JobStarted;
import dev.allot.schemas.catalogue.Topic;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;

/**
 * {@code bin/allot audit JOB}: re-derives one job's decisions from the log. Every input record of the
 * job's cluster (budgets, nodes, usage, submissions, agents' reports) is applied, in the order of
 * its timestamp, to a fresh {@link Projection} (the same scheduler-core and edge code as live), with a
 * scheduling pass at each time the log shows the live scheduler deciding; the decisions the replay
 * takes about the job are printed next to those the log holds, with their reasons. Exit status 0
 * when every logged decision is re-derived (kind, state, nodes and GPUs), 1 when one differs.
 */
public final class Audit {

    /** One record of the log, decoded, with where and when it was written. */
    private record Logged(String topic, int partition, long offset, long timestamp, SpecificRecord event) {
    }

    private Audit() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 1 || args[0].startsWith("-")) {
            System.err.println("usage: audit JOB [--cluster C]   (ALLOT_BOOTSTRAP, ALLOT_REGISTRY_URL, ALLOT_KAFKA_CONFIG)");
            System.exit(2);
        }
        String bootstrap = System.getenv().getOrDefault("ALLOT_BOOTSTRAP", "127.0.0.1:9092");
        String registry = System.getenv().getOrDefault("ALLOT_REGISTRY_URL", "http://127.0.0.1:8080");
        String cluster = args.length >= 3 && args[1].equals("--cluster") ? args[2] : null;
        System.exit(run(bootstrap, registry, args[0], cluster, System.out));
    }

    static int run(String bootstrap, String registry, String jobId, String clusterOrNull, PrintStream out) {
        // ALLOT_KAFKA_CONFIG: a client properties file (bin/allot audit gives it the analyst's)
        KafkaClients kafka = new KafkaClients(bootstrap, registry, dev.allot.edge.security.KafkaSecurity.fromEnvironment());
        EventReader reader = kafka.reader();
        List<Logged> log = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = kafka.consumer("audit",
                Map.of(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 5000))) {
            for (Topic<String, ? extends SpecificRecord> topic : InputReader.INPUT_TOPICS) {
                read(consumer, topic, reader, log);
            }
        }
        String cluster = clusterOrNull != null ? clusterOrNull : clusterOf(log, jobId);
        if (cluster == null) {
            out.println("job " + jobId + ": no JobAccepted in the log (unknown, or rejected before any cluster took it)");
            return 1;
        }
        List<JobEvent> logged = log.stream().filter(l -> l.event() instanceof JobEvent e && e.getJobId().equals(jobId)
                && !agentReport(e)).map(l -> (JobEvent) l.event()).toList();

        // The replay: inputs in timestamp order, a pass at every time the live scheduler decided.
        // the live instances' preemption rules, when they are not the defaults: -Dallot.scheduler.preemption.*
        Settings settings = Settings.of(bootstrap, registry, cluster)
                .withPreemption(Settings.Preemption.from(System::getProperty));
        Projection projection = new Projection(settings);
        RecordMapper mapper = new RecordMapper(cluster);
        TreeSet<Long> passes = new TreeSet<>();
        List<Logged> inputs = new ArrayList<>();
        for (Logged l : log) {
            if (l.event() instanceof JobEvent e && !agentReport(e)) {
                passes.add(e.getOccurredAt().toEpochMilli());
            } else {
                inputs.add(l);
            }
        }
        inputs.sort(Comparator.comparingLong(Logged::timestamp));
        List<JobEvent> derived = new ArrayList<>();
        List<Output> out1 = new ArrayList<>();
        for (Logged in : inputs) {
            while (!passes.isEmpty() && passes.first() < in.timestamp()) {
                pass(projection, passes.pollFirst(), out1);
            }
            try {
                for (Input i : mapper.map(in.event(), in.timestamp(), projection::knowsJob)) {
                    projection.apply(i, out1);
                }
            } catch (RuntimeException e) {
                // a rule break: the live scheduler dead-lettered it
            }
            collect(out1, jobId, derived);
        }
        while (!passes.isEmpty()) {
            pass(projection, passes.pollFirst(), out1);
            collect(out1, jobId, derived);
        }

        out.printf("job %s on cluster %s: %d decisions in the log; replayed %,d input records through scheduler-core%n",
                jobId, cluster, logged.size(), inputs.size());
        out.printf("%-24s %-14s %-10s %-8s %s%n", "at", "decision", "state", "replay", "details (logged)");
        int differ = 0;
        for (int i = 0; i < logged.size(); i++) {
            JobEvent e = logged.get(i);
            JobEvent d = i < derived.size() ? derived.get(i) : null;
            boolean same = d != null && signature(d).equals(signature(e));
            differ += same ? 0 : 1;
            out.printf("%-24s %-14s %-10s %-8s %s%n", e.getOccurredAt(), e.getPayload().getClass().getSimpleName(),
                    e.getStateAfter(), same ? "same" : "DIFFERS", details(e));
            if (!same) {
                out.printf("%-24s %-14s %-10s %-8s %s%n", d == null ? "-" : d.getOccurredAt(),
                        d == null ? "(none)" : d.getPayload().getClass().getSimpleName(),
                        d == null ? "" : d.getStateAfter(), "replay", d == null ? "" : details(d));
            }
        }
        for (int i = logged.size(); i < derived.size(); i++) {
            JobEvent d = derived.get(i);
            differ++;
            out.printf("%-24s %-14s %-10s %-8s %s%n", d.getOccurredAt(), d.getPayload().getClass().getSimpleName(),
                    d.getStateAfter(), "EXTRA", details(d));
        }
        out.println(differ == 0 ? "every decision re-derived from the log" : differ + " decision(s) differ");
        return differ == 0 ? 0 : 1;
    }

    private static void pass(Projection projection, long at, List<Output> out) {
        for (Input silent : projection.silentNodes(at)) {
            projection.apply(silent, out);
        }
        projection.pass(at, out);
    }

    private static void collect(List<Output> out, String jobId, List<JobEvent> derived) {
        for (Output o : out) {
            if (o.value() instanceof JobEvent e && e.getJobId().equals(jobId)) {
                derived.add(e);
            }
        }
        out.clear();
    }

    /** What must agree: the kind, the state after, and for a placement its nodes and GPUs. */
    private static String signature(JobEvent e) {
        String s = e.getPayload().getClass().getSimpleName() + "/" + e.getStateAfter();
        if (e.getPayload() instanceof JobPlaced p) {
            s += p.getAssignments().stream().map(a -> a.getNodeId() + a.getGpuIndices()).collect(Collectors.joining(","));
        }
        if (e.getPayload() instanceof JobPreempted p) {
            s += "/" + p.getPreemptorJobId();
        }
        return s;
    }

    private static String details(JobEvent e) {
        return switch (e.getPayload()) {
            case JobAccepted a -> "queued at " + a.getQueuedAt() + ", " + a.getReplicas() + " x " + a.getGpusPerReplica()
                    + " GPUs, minimum runtime " + a.getMinRuntimeSeconds() + " s";
            case JobPlaced p -> p.getAssignments().stream().map(a -> a.getNodeId() + " GPUs " + a.getGpuIndices())
                    .collect(Collectors.joining("; ")) + ", protected until " + p.getProtectedUntil() + ": "
                    + p.getExplanation();
            case JobPreempted p -> "by " + p.getPreemptorJobId() + " (" + p.getReason() + "): " + p.getExplanation();
            case JobRequeued r -> "queued at " + r.getQueuedAt() + ", restart " + r.getRestartCount() + ": " + r.getReason();
            case JobLost l -> "node " + l.getNodeId() + ": " + l.getReason();
            case JobRejected r -> r.getReason() + (r.getField() == null ? "" : " (field " + r.getField() + ")");
            case JobFailed f -> f.getReason();
            case JobCancelled c -> "by " + c.getRequestedBy() + (c.getReason() == null ? "" : ": " + c.getReason());
            default -> String.valueOf(e.getPayload());
        };
    }

    private static boolean agentReport(JobEvent e) {
        return e.getPayload() instanceof JobStarted || e.getPayload() instanceof JobExited
                || e.getPayload() instanceof JobCheckpointed;
    }

    private static String clusterOf(List<Logged> log, String jobId) {
        for (Logged l : log) {
            if (l.event() instanceof JobEvent e && e.getJobId().equals(jobId) && e.getPayload() instanceof JobAccepted a) {
                return a.getCluster();
            }
        }
        return null;
    }

    private static <V extends SpecificRecord> void read(KafkaConsumer<byte[], byte[]> consumer, Topic<String, V> topic,
            EventReader reader, List<Logged> into) {
        List<TopicPartition> partitions = consumer.partitionsFor(topic.name()).stream()
                .map(p -> new TopicPartition(topic.name(), p.partition())).toList();
        consumer.assign(partitions);
        consumer.seekToBeginning(partitions);
        Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
        while (partitions.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp))) {
            for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                if (r.value() == null) {
                    continue;
                }
                try {
                    into.add(new Logged(r.topic(), r.partition(), r.offset(), r.timestamp(), reader.read(topic, r.value())));
                } catch (InvalidRecord e) {
                    // a dead letter: the live scheduler skipped it too
                }
            }
        }
        consumer.assign(List.of());
    }

}
