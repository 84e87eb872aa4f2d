package dev.allot.chaos;

import dev.allot.edge.InvalidRecord;
import dev.allot.edge.KafkaClients;
import dev.allot.schemas.BudgetUsage;
import dev.allot.schemas.DeadLetter;
import dev.allot.schemas.JobEvent;
import dev.allot.schemas.JobRequest;
import dev.allot.schemas.JobSubmitted;
import dev.allot.schemas.UsageReported;
import dev.allot.schemas.catalogue.Topic;
import dev.allot.schemas.catalogue.Topics;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;

/**
 * Reads the topics the checker judges from their beginning to their end as of the call (read_committed: aborted
 * scheduler transactions do not show), decoded by the edge's one reader. No consumer group: nothing is committed,
 * so an analyst principal that may only read can run it.
 */
public final class LogReader {

    private final KafkaClients clients;

    public LogReader(KafkaClients clients) {
        this.clients = clients;
    }

    public ChaosLog read() {
        Instant readAt = Instant.now();
        List<JobSubmitted> submissions = new ArrayList<>();
        List<JobEvent> jobEvents = new ArrayList<>();
        List<UsageReported> usage = new ArrayList<>();
        List<BudgetUsage> budgetUsage = new ArrayList<>();
        List<DeadLetter> deadLetters = new ArrayList<>();
        long[] undecodable = {0};
        readTopic(Topics.JOB_REQUESTS, r -> {
            if (r.getPayload() instanceof JobSubmitted s) {
                submissions.add(s);
            }
        }, undecodable);
        readTopic(Topics.JOB_EVENTS, jobEvents::add, undecodable);
        readTopic(Topics.USAGE, usage::add, undecodable);
        readTopic(Topics.BUDGET_USAGE, budgetUsage::add, undecodable);
        readTopic(Topics.DEAD_LETTERS, deadLetters::add, undecodable);
        return new ChaosLog(submissions, jobEvents, usage, budgetUsage, deadLetters, undecodable[0], readAt);
    }

    private <V extends SpecificRecord> void readTopic(Topic<String, V> topic, Consumer<V> sink, long[] undecodable) {
        try (KafkaConsumer<byte[], byte[]> consumer = clients.consumer("allot-chaos-check",
                Map.of("max.poll.records", 5000))) {
            List<TopicPartition> partitions = new ArrayList<>();
            for (PartitionInfo p : consumer.partitionsFor(topic.name(), Duration.ofSeconds(30))) {
                partitions.add(new TopicPartition(p.topic(), p.partition()));
            }
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> ends = consumer.endOffsets(partitions, Duration.ofSeconds(30));
            // per partition, in order: a job's events keep their log order
            List<List<V>> perPartition = new ArrayList<>();
            Map<TopicPartition, Integer> index = new java.util.HashMap<>();
            for (TopicPartition tp : partitions) {
                index.put(tp, perPartition.size());
                perPartition.add(new ArrayList<>());
            }
            while (partitions.stream().anyMatch(tp -> consumer.position(tp, Duration.ofSeconds(30)) < ends.get(tp))) {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(500))) {
                    if (r.value() == null) {
                        continue; // a tombstone of a compacted topic
                    }
                    try {
                        perPartition.get(index.get(new TopicPartition(r.topic(), r.partition())))
                                .add(clients.reader().read(topic, r.value()));
                    } catch (InvalidRecord bad) {
                        undecodable[0]++;
                    }
                }
            }
            perPartition.forEach(list -> list.forEach(sink));
        }
    }
}
