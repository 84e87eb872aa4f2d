package dev.allot.scheduler;

import dev.allot.schemas.JobRequest;
import dev.allot.schemas.catalogue.Topic;
import dev.allot.schemas.catalogue.Topics;
import dev.allot.testsupport.AllotInfra;
import dev.allot.testsupport.AllotInfrastructure;
import dev.allot.testsupport.JobHistory;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * Not part of the normal run (no *Test suffix): {@code bin/allot scheduler-bench -Dtest=RestartBenchmark}.
 * Writes the log a scheduler would have left after 100,000 jobs (95,000 completed, 5,000 running on
 * 625 nodes x 8 GPUs) with its group's offsets committed at the end, then starts a scheduler and
 * measures how long it takes to rebuild from the topics and turn ready, and checks what it rebuilt.
 */
@AllotInfra
class RestartBenchmark {

    @Test
    void measure(AllotInfrastructure infra) throws Exception {
        int history = Integer.getInteger("bench.restart.jobs", 100_000);
        int running = Integer.getInteger("bench.restart.running", 5_000);
        int nodes = (running + 7) / 8 + 1; // one node left free: the restarted scheduler must place a new job there
        String cluster = Events.id("restart");
        String root = Events.id("org");
        String team = root + "/a";
        long t0 = System.currentTimeMillis() - Duration.ofDays(2).toMillis();
        try (KafkaProducer<String, SpecificRecord> producer = infra.producer()) {
            Events events = new Events(producer, cluster);
            events.budget(root, null, 1);
            events.budget(team, root, 1);
            long began = System.nanoTime();
            JobHistory writer = new JobHistory(producer, cluster, team, nodes);
            writer.registerNodes(t0);
            writer.writeJobs(t0, history, running, written -> { });
            System.out.printf(Locale.ROOT, "BENCH restart log: %d jobs (%d running) written in %.1f s%n", history,
                    running, (System.nanoTime() - began) / 1e9);
        }
        commitEnds(infra, "allot-scheduler-" + cluster);
        // A submission the scheduler has not read yet: the restarted one decides it once ready.
        String fresh = cluster + "-fresh";
        try (KafkaProducer<String, SpecificRecord> producer = infra.producer()) {
            send(producer, Topics.JOB_REQUESTS, fresh, new JobRequest(UUID.randomUUID().toString(), Instant.now(),
                    Events.job(fresh, team, cluster, 1, 8, 60)));
            producer.flush();
        }

        String load = uptime();
        long restart = System.nanoTime();
        SchedulerLoop loop = new SchedulerLoop(Settings.of(infra.bootstrapServers(), infra.registryUrl(), cluster)
                .withLostAfter(Duration.ofHours(1)), null);
        loop.start();
        try (dev.allot.testsupport.Tail<dev.allot.schemas.NodeCommand> commands =
                new dev.allot.testsupport.Tail<>(infra, Topics.NODE_COMMANDS)) {
            long deadline = System.nanoTime() + Duration.ofMinutes(Integer.getInteger("bench.restart.minutes", 5)).toNanos();
            double ready = -1;
            while (commands.records().stream().noneMatch(r -> Events.startFor(r, fresh))) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("no decision: " + loop.status());
                }
                if (ready < 0 && loop.status().phase() == SchedulerLoop.Phase.RUNNING) {
                    ready = (System.nanoTime() - restart) / 1e9;
                }
                Thread.sleep(5); // polling a measurement, not synchronising a test
            }
            double deciding = (System.nanoTime() - restart) / 1e9;
            SchedulerLoop.Status st = loop.status();
            System.out.printf(Locale.ROOT, "BENCH restart: %d jobs of history, %d running: rebuilt from %d log records "
                    + "in %d ms, ready after %.2f s, first decision (StartJob of a new job) after %.2f s, loop thread "
                    + "CPU %.2f s; rebuilt %d running, %d nodes; load before: %s, after: %s%n", history, running,
                    st.rebuiltFromRecords(), st.rebuildMillis(), ready, deciding, loopCpuSeconds(cluster) , st.running(),
                    st.nodes(), load, uptime());
            if (st.running() != running + 1) {
                throw new AssertionError("rebuilt " + st.running() + " running");
            }
        } finally {
            loop.stop();
        }
    }

    /** CPU time of the scheduler loop's thread so far. */
    private static double loopCpuSeconds(String cluster) {
        java.lang.management.ThreadMXBean cpu = java.lang.management.ManagementFactory.getThreadMXBean();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().equals("allot-scheduler-" + cluster)) {
                return cpu.getThreadCpuTime(t.threadId()) / 1e9;
            }
        }
        return -1;
    }

    private static String uptime() {
        try {
            return java.nio.file.Files.readString(java.nio.file.Path.of("/proc/loadavg")).trim();
        } catch (java.io.IOException e) {
            return "?";
        }
    }

    private static <V extends SpecificRecord> void send(KafkaProducer<String, SpecificRecord> producer,
            Topic<String, V> topic, String key, V value) {
        producer.send(new ProducerRecord<>(topic.name(), key, value));
    }

    /** The scheduler's group has applied everything: its offsets at every input's end. */
    private static void commitEnds(AllotInfrastructure infra, String group) throws Exception {
        try (org.apache.kafka.clients.admin.Admin admin = infra.admin()) {
            commitEnds(admin, group);
        }
    }

    private static void commitEnds(org.apache.kafka.clients.admin.Admin admin, String group) throws Exception {
        Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
        for (Topic<String, ?> topic : InputReader.INPUT_TOPICS) {
            for (var p : admin.describeTopics(List.of(topic.name())).allTopicNames().get().get(topic.name())
                    .partitions()) {
                latest.put(new TopicPartition(topic.name(), p.partition()), OffsetSpec.latest());
            }
        }
        Map<TopicPartition, OffsetAndMetadata> ends = new HashMap<>();
        for (Map.Entry<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> e : admin.listOffsets(latest)
                .all().get().entrySet()) {
            ends.put(e.getKey(), new OffsetAndMetadata(e.getValue().offset()));
        }
        admin.alterConsumerGroupOffsets(group, ends).all().get();
    }
}
