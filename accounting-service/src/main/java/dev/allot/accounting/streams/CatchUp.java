package dev.allot.accounting.streams;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.kafka.common.TopicPartition;

/**
 * Whether this instance has caught up with its inputs as they stood when it started: ready means serving, and a
 * store that has not read the backlog answers partial usage (measured: 1.7 s after a restart, 5.4 s after a first
 * start over 100,000 tiles, with Streams already RUNNING). Latched: once caught up, a later backlog (a broker that
 * was away) is lag, not a start.
 *
 * <p>How: for every input partition of this instance's active tasks, the readable end (the last stable offset) is
 * taken the first time it is seen; the instance is caught up with it once the application's committed offset has
 * reached it (with exactly-once a committed offset means processed and written; Streams commits past transaction
 * markers too). Twice: the first round brings the sources' backlog into the repartition topic, the second has it
 * read from there. A partition with nothing left to read from its start (retention took it all, or it is empty)
 * counts as read.
 */
public final class CatchUp {

    /** Where the offsets come from (the broker, through an Admin client, as the service runs). */
    public interface Offsets {
        /** First and readable end offset of each partition. */
        Map<TopicPartition, Span> spans(Collection<TopicPartition> partitions) throws Exception;

        /** The application's committed offsets (absent: never committed). */
        Map<TopicPartition, Long> committed() throws Exception;
    }

    public record Span(long start, long end) {
    }

    static final int ROUNDS = 2;

    private final Offsets offsets;
    /** The input partitions of this instance's active tasks; empty while Streams is not RUNNING. */
    private final Supplier<Optional<Set<TopicPartition>>> assigned;
    private final Map<TopicPartition, Span> targets = new HashMap<>();
    private int roundsDone;
    private volatile boolean caughtUp;
    private volatile String progress = "not started";

    public CatchUp(Offsets offsets, Supplier<Optional<Set<TopicPartition>>> assigned) {
        this.offsets = offsets;
        this.assigned = assigned;
    }

    /** The offsets as the broker has them: ends as a read-committed consumer reads, the group's committed ones. */
    public static Offsets onBroker(org.apache.kafka.clients.admin.Admin admin, String applicationId) {
        java.time.Duration timeout = java.time.Duration.ofSeconds(5);
        return new Offsets() {
            @Override
            public Map<TopicPartition, Span> spans(Collection<TopicPartition> partitions) throws Exception {
                Map<TopicPartition, org.apache.kafka.clients.admin.OffsetSpec> earliest = new HashMap<>();
                Map<TopicPartition, org.apache.kafka.clients.admin.OffsetSpec> latest = new HashMap<>();
                partitions.forEach(p -> {
                    earliest.put(p, org.apache.kafka.clients.admin.OffsetSpec.earliest());
                    latest.put(p, org.apache.kafka.clients.admin.OffsetSpec.latest());
                });
                var starts = admin.listOffsets(earliest).all().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
                var ends = admin.listOffsets(latest, new org.apache.kafka.clients.admin.ListOffsetsOptions(
                        org.apache.kafka.common.IsolationLevel.READ_COMMITTED)).all()
                        .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
                Map<TopicPartition, Span> spans = new HashMap<>();
                partitions.forEach(p -> spans.put(p, new Span(starts.get(p).offset(), ends.get(p).offset())));
                return spans;
            }

            @Override
            public Map<TopicPartition, Long> committed() throws Exception {
                Map<TopicPartition, Long> committed = new HashMap<>();
                admin.listConsumerGroupOffsets(applicationId).partitionsToOffsetAndMetadata()
                        .get(timeout.toMillis(), TimeUnit.MILLISECONDS)
                        .forEach((p, o) -> {
                            if (o != null) {
                                committed.put(p, o.offset());
                            }
                        });
                return committed;
            }
        };
    }

    /** The input partitions of the client's active tasks while it runs. */
    public static Supplier<Optional<Set<TopicPartition>>> assignedTo(org.apache.kafka.streams.KafkaStreams streams) {
        return () -> {
            if (streams.state() != org.apache.kafka.streams.KafkaStreams.State.RUNNING) {
                return Optional.empty();
            }
            Set<TopicPartition> partitions = new java.util.HashSet<>();
            streams.metadataForLocalThreads().forEach(thread -> thread.activeTasks()
                    .forEach(task -> partitions.addAll(task.topicPartitions())));
            return Optional.of(partitions);
        };
    }

    public boolean caughtUp() {
        return caughtUp;
    }

    /** What it waits for, for the health check. */
    public String progress() {
        return caughtUp ? "caught up" : progress;
    }

    /** Looks once more; true once caught up (and from then on without asking the broker). */
    public synchronized boolean check() {
        if (caughtUp) {
            return true;
        }
        Optional<Set<TopicPartition>> local = assigned.get();
        if (local.isEmpty()) {
            progress = "waiting for the streams to run";
            return false;
        }
        try {
            while (roundsDone < ROUNDS) {
                List<TopicPartition> unknown = local.get().stream().filter(p -> !targets.containsKey(p)).toList();
                if (!unknown.isEmpty()) {
                    targets.putAll(offsets.spans(unknown));
                }
                Map<TopicPartition, Long> committed = offsets.committed();
                List<String> behind = new ArrayList<>();
                long records = 0;
                for (TopicPartition partition : local.get()) {
                    Span target = targets.get(partition);
                    if (target == null) {
                        behind.add(partition + " (end unknown)");
                        continue;
                    }
                    long read = Math.max(committed.getOrDefault(partition, target.start()), target.start());
                    if (read < target.end()) {
                        behind.add(partition.toString());
                        records += target.end() - read;
                    }
                }
                if (!behind.isEmpty()) {
                    progress = "round " + (roundsDone + 1) + " of " + ROUNDS + ": " + records + " records to read on "
                            + behind.size() + " partitions, e.g. " + behind.stream().sorted().limit(3).toList();
                    return false;
                }
                roundsDone++;
                targets.clear(); // the next round's ends are taken now
            }
        } catch (Exception e) {
            progress = "offsets unknown: " + e;
            return false;
        }
        caughtUp = true;
        return true;
    }
}
