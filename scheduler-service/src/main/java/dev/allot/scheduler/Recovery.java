package dev.allot.scheduler;

import dev.allot.edge.EventReader;
import dev.allot.edge.InvalidRecord;
import dev.allot.schemas.JobEvent;
import dev.allot.schemas.catalogue.Topic;
import dev.allot.schemas.catalogue.Topics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.jboss.logging.Logger;

/**
 * The rebuild from the public log (README, "Recovery"). After {@code initTransactions} has fenced
 * any older instance and aborted its open transaction, every input topic is read from the beginning
 * to its end (read_committed: only committed transactions), through the same decoder as live, into
 * a {@link LogRestore}: the records below the group's committed offsets are the inputs the last
 * commit had applied, and the scheduler's own decisions count wherever they are. The loop then
 * resumes every input from the committed offsets.
 */
final class Recovery {

    private static final Logger LOG = Logger.getLogger(Recovery.class);

    /** The projection the log rebuilt, and what the rebuild cost. */
    record Rebuilt(Projection projection, long records, long millis) {
    }

    private final Settings settings;
    private final SchedulerClients clients;

    Recovery(Settings settings, SchedulerClients clients) {
        this.settings = settings;
        this.clients = clients;
    }

    /**
     * The projection the log describes. Without any committed offset (a first start) nothing was
     * applied: a fresh projection, and the loop reads every topic from the beginning.
     *
     * @param committed the cluster group's committed offset per input partition (absent: none)
     */
    Rebuilt rebuild(Map<TopicPartition, OffsetAndMetadata> committed) {
        long began = System.nanoTime();
        java.lang.management.ThreadMXBean cpu = java.lang.management.ManagementFactory.getThreadMXBean();
        long cpuBegan = cpu.getCurrentThreadCpuTime();
        long now = System.currentTimeMillis();
        if (committed.values().stream().allMatch(o -> o == null)) {
            Projection fresh = new Projection(settings);
            fresh.heardAllAt(now);
            return new Rebuilt(fresh, 0, (System.nanoTime() - began) / 1_000_000);
        }
        LogRestore fold = new LogRestore(settings.cluster());
        EventReader reader = clients.reader();
        StringBuilder split = new StringBuilder();
        try (KafkaConsumer<byte[], byte[]> consumer = clients.rebuildConsumer()) {
            // Facts first, then submissions (their launches), then job-events (verdicts need both).
            timed(split, Topics.BUDGETS.name(), () -> read(consumer, Topics.BUDGETS, committed, reader, fold::fact));
            timed(split, Topics.NODE_STATUS.name(), () -> read(consumer, Topics.NODE_STATUS, committed, reader, fold::fact));
            timed(split, Topics.BUDGET_USAGE.name(), () -> read(consumer, Topics.BUDGET_USAGE, committed, reader, fold::fact));
            timed(split, Topics.JOB_REQUESTS.name(), () -> read(consumer, Topics.JOB_REQUESTS, committed, reader,
                    fold::request));
            timed(split, Topics.JOB_EVENTS.name(), () -> read(consumer, Topics.JOB_EVENTS, committed, reader,
                    (JobEvent e, boolean applied) -> fold.jobEvent(e, applied)));
        }
        Projection[] built = new Projection[1];
        timed(split, "core", () -> built[0] = fold.into(settings, now));
        Projection projection = built[0];
        long millis = (System.nanoTime() - began) / 1_000_000;
        LOG.infof("cluster %s: rebuilt from %d log records in %d ms, %d ms of this thread's CPU (%d jobs running, "
                + "%d waiting, %d nodes; %d of %d input partitions without a committed offset); wall ms, CPU ms:%s",
                settings.cluster(), fold.records(), millis, (cpu.getCurrentThreadCpuTime() - cpuBegan) / 1_000_000,
                projection.runningCount(), projection.waitingCount(), projection.nodeCount(),
                committed.values().stream().filter(o -> o == null).count(), committed.size(), split);
        return new Rebuilt(projection, fold.records(), millis);
    }

    /** Runs one part of the rebuild and appends its wall and CPU time to {@code split}, for the log line. */
    private static void timed(StringBuilder split, String part, Runnable run) {
        java.lang.management.ThreadMXBean cpu = java.lang.management.ManagementFactory.getThreadMXBean();
        long began = System.nanoTime();
        long cpuBegan = cpu.getCurrentThreadCpuTime();
        run.run();
        split.append(' ').append(part).append(' ').append((System.nanoTime() - began) / 1_000_000).append('/')
                .append((cpu.getCurrentThreadCpuTime() - cpuBegan) / 1_000_000);
    }

    interface Sink<V> {
        void accept(V event, boolean applied);
    }

    /** Reads one topic from the beginning to its end; a record is applied if it lies below the committed offset. */
    private static <V extends SpecificRecord> void read(KafkaConsumer<byte[], byte[]> consumer, Topic<String, V> topic,
            Map<TopicPartition, OffsetAndMetadata> committed, EventReader reader, Sink<? super V> sink) {
        List<TopicPartition> partitions = new ArrayList<>();
        for (PartitionInfo p : consumer.partitionsFor(topic.name())) {
            partitions.add(new TopicPartition(topic.name(), p.partition()));
        }
        consumer.assign(partitions);
        consumer.seekToBeginning(partitions);
        Map<TopicPartition, Long> end = consumer.endOffsets(partitions); // read_committed: last stable offsets
        while (partitions.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp))) {
            for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                if (record.value() == null) {
                    continue;
                }
                OffsetAndMetadata upTo = committed.get(new TopicPartition(record.topic(), record.partition()));
                boolean applied = upTo != null && record.offset() < upTo.offset();
                V event;
                try {
                    event = reader.read(topic, record.value());
                } catch (InvalidRecord e) {
                    continue; // dead-lettered when it was read live (or will be, when read from the committed offset)
                }
                sink.accept(event, applied);
            }
        }
        consumer.assign(List.of());
    }
}
