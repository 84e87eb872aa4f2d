package dev.allot.accounting.replay;

import dev.allot.accounting.book.AccountingView;
import dev.allot.accounting.book.Budgets;
import dev.allot.accounting.book.Fact;
import dev.allot.accounting.book.Hours;
import dev.allot.accounting.book.Intake;
import dev.allot.accounting.book.MemoryRowStore;
import dev.allot.accounting.book.Row;
import dev.allot.accounting.book.UsageBook;
import dev.allot.accounting.streams.AccountingTopics;
import dev.allot.edge.EventReader;
import dev.allot.edge.KafkaClients;
import dev.allot.edge.RegistryUnavailable;
import dev.allot.core.budget.BudgetTree;
import dev.allot.schemas.AccountDemand;
import dev.allot.schemas.BudgetEvent;
import dev.allot.schemas.DeadLetter;
import dev.allot.schemas.NodeStatus;
import dev.allot.schemas.UsageReported;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;

/**
 * Audit replay: reads the log from the beginning (up to where it ends now) into a fresh in-memory
 * projection built by the same code as the live service ({@link Intake}, {@link UsageBook},
 * {@link AccountingView}), values read by the edge's {@link EventReader}. Needs only the broker and the registry;
 * if the registry does not answer, the replay fails ({@link RegistryUnavailable}) rather than count records as
 * rejected.
 *
 * <p>Agreement with the live service: records the live service dead-lettered as too late (found in
 * the dead-letters topic by source topic, partition and offset) are left out here too, since lateness
 * depends on the order the live tasks saw records in; malformed and invalid records fail the same rules.
 */
public final class Replay {

    /** What was read, and the projection to report from. */
    public record Result(AccountingView view, MemoryRowStore rows, BudgetTree tree, Map<String, Integer> capacity,
                         long records, long booked, long rejected, long excludedTooLate, Map<Long, double[]> jobHours,
                         Duration took) {
    }

    private final KafkaClients kafka;
    private final AccountingTopics topics;
    private final long windowMillis;
    private final PrintStream progress;

    public Replay(String bootstrap, String registry, AccountingTopics topics, long windowMillis, PrintStream progress) {
        // ALLOT_KAFKA_CONFIG: a client properties file (bin/allot replay gives it the analyst's)
        this.kafka = new KafkaClients(bootstrap, registry, dev.allot.edge.security.KafkaSecurity.fromEnvironment());
        this.topics = topics;
        this.windowMillis = windowMillis;
        this.progress = progress;
    }

    public Result run(String jobId) {
        long began = System.nanoTime();
        Map<String, BudgetEvent> budgets = new TreeMap<>();
        Map<String, Fact> nodes = new HashMap<>();
        Set<String> tooLate = new HashSet<>();
        EventReader reader = kafka.reader();
        long[] counts = new long[4]; // records, booked, rejected, excluded

        // Pass 1: the small topics (tree, capacity, what the live service dead-lettered as too late).
        readAll(List.of(topics.budgets(), topics.nodeStatus(), topics.deadLetters()), "reference", r -> {
            counts[0]++;
            try {
                if (r.topic().equals(topics.budgets())) {
                    String key = r.key() == null ? "" : new String(r.key());
                    if (r.value() == null) {
                        budgets.remove(key);
                    } else {
                        budgets.put(key, reader.read(r.value(), BudgetEvent.class));
                    }
                } else if (r.topic().equals(topics.nodeStatus())) {
                    Intake.Result res = Intake.node(reader.read(r.value(), NodeStatus.class), source(r));
                    if (res.fact() != null) {
                        nodes.put(res.fact().nodeId(), res.fact());
                    }
                } else {
                    DeadLetter d = reader.read(r.value(), DeadLetter.class);
                    if (d.getReason().startsWith("too late") && "accounting-service".equals(d.getConsumer())) {
                        tooLate.add(d.getSourceTopic() + "/" + d.getPartition() + "/" + d.getOffset());
                    }
                }
            } catch (RegistryUnavailable e) {
                throw e; // an audit that skipped what it could not read would be wrong: fail, to be run again
            } catch (RuntimeException undecodable) {
                counts[2]++;
            }
        });

        // Pass 2: usage and demand into hourly rows.
        MemoryRowStore rows = new MemoryRowStore();
        UsageBook book = new UsageBook(rows);
        Map<Long, double[]> jobHours = new TreeMap<>();
        readAll(List.of(topics.usage(), topics.accountDemand()), "usage", r -> {
            counts[0]++;
            Intake.Result res;
            try {
                res = r.topic().equals(topics.usage())
                        ? Intake.usage(reader.read(r.value(), UsageReported.class), source(r))
                        : Intake.demand(reader.read(r.value(), AccountDemand.class), source(r));
            } catch (RegistryUnavailable e) {
                throw e;
            } catch (RuntimeException malformed) {
                counts[2]++;
                return;
            }
            if (res.rejected()) {
                counts[2]++;
                return;
            }
            if (!tooLate.isEmpty() && tooLate.contains(r.topic() + "/" + r.partition() + "/" + r.offset())) {
                counts[3]++;
                return;
            }
            Fact f = res.fact();
            book.apply(f, UsageBook.Added.NONE);
            counts[1]++;
            if (jobId != null && jobId.equals(f.jobId())) {
                Hours.split(f.start(), f.end(), f.gpuSeconds(), (h, gs) ->
                        jobHours.computeIfAbsent(h, x -> Row.empty())[f.charged() ? Row.CHARGED : Row.UNALLOCATED] += gs);
            }
        });

        Map<String, Integer> capacity = new HashMap<>();
        for (Fact n : nodes.values()) {
            if (n.gpus() > 0) {
                capacity.merge(n.cluster(), n.gpus(), Integer::sum);
            }
        }
        BudgetTree tree = Budgets.tree(budgets.values());
        AccountingView view = new AccountingView(rows, rows.accountsByCluster(), tree, capacity, windowMillis);
        return new Result(view, rows, tree, capacity, counts[0], counts[1], counts[2], counts[3], jobHours,
                Duration.ofNanos(System.nanoTime() - began));
    }

    private static Intake.Source source(ConsumerRecord<byte[], byte[]> r) {
        return new Intake.Source(r.topic(), r.partition(), r.offset(), r.key(), r.value());
    }

    /** Reads the topics from the beginning to their current end (committed records only), with progress. */
    private void readAll(List<String> names, String phase, Consumer<ConsumerRecord<byte[], byte[]>> sink) {
        // No group needed (partitions are assigned), but a fresh one keeps the replay apart from anything else.
        try (KafkaConsumer<byte[], byte[]> consumer = kafka.consumer("allot-replay", Map.of(
                ConsumerConfig.GROUP_ID_CONFIG, "allot-replay-" + UUID.randomUUID(),
                ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 20_000,
                ConsumerConfig.FETCH_MAX_BYTES_CONFIG, 64 * 1024 * 1024,
                ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, 16 * 1024 * 1024,
                ConsumerConfig.FETCH_MIN_BYTES_CONFIG, 1))) {
            List<TopicPartition> partitions = new ArrayList<>();
            for (String name : names) {
                List<PartitionInfo> infos = consumer.partitionsFor(name, Duration.ofSeconds(30));
                if (infos != null) {
                    infos.forEach(i -> partitions.add(new TopicPartition(i.topic(), i.partition())));
                }
            }
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = new HashMap<>(consumer.endOffsets(partitions));
            Map<TopicPartition, Long> begin = consumer.beginningOffsets(partitions);
            long total = 0;
            for (TopicPartition tp : partitions) {
                total += end.get(tp) - begin.get(tp);
            }
            end.entrySet().removeIf(e -> e.getValue() <= begin.get(e.getKey()));
            long read = 0;
            long started = System.nanoTime();
            long lastReport = started;
            while (!end.isEmpty()) {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    TopicPartition tp = new TopicPartition(r.topic(), r.partition());
                    Long stop = end.get(tp);
                    if (stop == null || r.offset() >= stop) {
                        continue;
                    }
                    sink.accept(r);
                    read++;
                }
                for (TopicPartition tp : List.copyOf(end.keySet())) {
                    if (consumer.position(tp) >= end.get(tp)) {
                        end.remove(tp);
                    }
                }
                long now = System.nanoTime();
                if (progress != null && now - lastReport > 1_000_000_000L) {
                    lastReport = now;
                    double secs = (now - started) / 1e9;
                    progress.printf("replay %s: %,d / %,d records (%.0f%%), %,.0f records/s%n", phase, read, total,
                            total == 0 ? 100.0 : 100.0 * read / total, read / secs);
                }
            }
            if (progress != null) {
                double secs = (System.nanoTime() - started) / 1e9;
                progress.printf("replay %s: %,d records in %.1f s (%,.0f records/s)%n", phase, read, secs,
                        secs > 0 ? read / secs : 0);
            }
        }
    }
}
