package dev.allot.scheduler;

import dev.allot.edge.EventReader;
import dev.allot.schemas.NodeCommand;
import dev.allot.schemas.StartJob;
import dev.allot.schemas.catalogue.Topics;
import dev.allot.testsupport.AllotInfra;
import dev.allot.testsupport.AllotInfrastructure;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;

/**
 * Not part of the normal test run (no *Test suffix): run with
 * {@code ./mvnw -o -pl scheduler-service test -Dtest=LoopBenchmark -Dsurefire.failIfNoSpecifiedTests=false}.
 * Measures, on the real broker and registry in this JVM, submit → StartJob latency on an idle
 * cluster (sequential) and how many submissions per second the loop schedules (a burst);
 * {@code -Dbench.heartbeat.millis=1000} adds every node's heartbeat once a second, as agents send them.
 */
@AllotInfra
class LoopBenchmark {

    @Test
    void measure(AllotInfrastructure infra) throws Exception {
        int latencyJobs = Integer.getInteger("bench.latency.jobs", 300);
        int burstJobs = Integer.getInteger("bench.burst.jobs", 5_000);
        int nodes = Integer.getInteger("bench.nodes", 1_024);
        // every node heartbeats once per this many ms (0: none), spread over the period, as agents do
        int heartbeatMillis = Integer.getInteger("bench.heartbeat.millis", 0);
        String cluster = Events.id("bench");
        Map<String, Long> startedAt = new ConcurrentHashMap<>();
        KafkaProducer<String, SpecificRecord> producer = infra.producer();
        Events events = new Events(producer, cluster);
        String root = Events.id("org");
        events.budget(root, null, 1);
        events.budget(root + "/a", root, 1);
        EventReader reader = infra.clients().reader();
        KafkaConsumer<byte[], byte[]> consumer = infra.rawConsumer();
        Thread tail = new Thread(() -> {
            consumer.subscribe(Set.of(Topics.NODE_COMMANDS.name()));
            while (!Thread.currentThread().isInterrupted()) {
                try {
                    for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(20))) {
                        NodeCommand c = reader.read(Topics.NODE_COMMANDS, r.value());
                        if (c.getPayload() instanceof StartJob s) {
                            startedAt.putIfAbsent(s.getJobId(), System.nanoTime());
                        }
                    }
                } catch (org.apache.kafka.common.errors.InterruptException e) {
                    return;
                } catch (RuntimeException ignored) {
                    // another test's garbage
                }
            }
        });
        tail.start();
        SchedulerLoop loop = new SchedulerLoop(Settings.of(infra.bootstrapServers(), infra.registryUrl(), cluster)
                .withLostAfter(Duration.ofHours(1)), null);
        loop.start();
        java.util.concurrent.ScheduledExecutorService heartbeats = java.util.concurrent.Executors.newSingleThreadScheduledExecutor();
        try {
            for (int i = 0; i < nodes; i++) {
                producer.send(new ProducerRecord<>(Topics.NODE_STATUS.name(), cluster + "-n" + i,
                        new dev.allot.schemas.NodeStatus(java.util.UUID.randomUUID().toString(), java.time.Instant.now(),
                                cluster + "-n" + i, new dev.allot.schemas.NodeRegistered(cluster, 8, "fake", 1L, "bench", null))));
            }
            producer.flush();
            waitUntil(() -> loop.status().nodes() == nodes, 60);
            if (heartbeatMillis > 0) {
                int slices = Math.max(1, heartbeatMillis / 10);
                int[] slice = {0};
                heartbeats.scheduleAtFixedRate(() -> {
                    int k = slice[0]++ % slices;
                    for (int n = k; n < nodes; n += slices) {
                        events.heartbeat(cluster + "-n" + n, List.of());
                    }
                }, 0, heartbeatMillis / slices, java.util.concurrent.TimeUnit.MILLISECONDS);
                System.out.printf(Locale.ROOT, "BENCH heartbeats: %d nodes, each every %d ms (%d records/s)%n", nodes,
                        heartbeatMillis, nodes * 1000L / heartbeatMillis);
            }

            // 1. latency on an idle cluster: one job at a time, submit -> StartJob seen (read_committed).
            long[] latency = new long[latencyJobs];
            for (int i = 0; i < latencyJobs + 20; i++) {
                String id = Events.id("lat");
                long sent = System.nanoTime();
                events.submit(Events.job(id, root + "/a", cluster, 1, 1, 0));
                waitUntil(() -> startedAt.containsKey(id), 30);
                if (i >= 20) { // the first ones warm up the JIT, the registry cache and the transaction path
                    latency[i - 20] = startedAt.get(id) - sent;
                }
            }
            Arrays.sort(latency);
            System.out.printf(Locale.ROOT, "BENCH latency submit->StartJob over %d jobs: p50 %.1f ms, p99 %.1f ms, max %.1f ms%n",
                    latencyJobs, latency[latencyJobs / 2] / 1e6, latency[(int) (latencyJobs * 0.99)] / 1e6,
                    latency[latencyJobs - 1] / 1e6);

            // 2. a burst: N submissions sent as fast as the producer goes; time until the last StartJob.
            List<String> ids = new ArrayList<>();
            long began = System.nanoTime();
            for (int i = 0; i < burstJobs; i++) {
                String id = "burst-" + cluster + "-" + i;
                ids.add(id);
                producer.send(new ProducerRecord<>(Topics.JOB_REQUESTS.name(), id, new dev.allot.schemas.JobRequest(
                        java.util.UUID.randomUUID().toString(), java.time.Instant.now(),
                        Events.job(id, root + "/a", cluster, 1, 1, 0))));
            }
            producer.flush();
            long sentAll = System.nanoTime();
            // Jobs beyond the free GPUs wait: the burst is over when the cluster is full.
            long fits = Math.min(burstJobs, nodes * 8L - latencyJobs - 20);
            try {
                waitUntil(() -> ids.stream().filter(startedAt::containsKey).count() >= fits, 240);
            } catch (IllegalStateException e) {
                long started = ids.stream().filter(startedAt::containsKey).count();
                System.out.printf(Locale.ROOT, "BENCH burst timed out: %d of %d started after %.1f s; loop %s%n", started,
                        burstJobs, (System.nanoTime() - began) / 1e9, loop.status());
                throw e;
            }
            long last = ids.stream().filter(startedAt::containsKey).mapToLong(startedAt::get).max().orElseThrow();
            waitUntil(() -> loop.status().waiting() == burstJobs - fits, 120);
            System.out.printf(Locale.ROOT, "BENCH burst of %d submissions on %d nodes x 8 GPUs: sent in %.2f s, %d started (cluster full) after %.2f s: %.0f submissions/s scheduled; %d waiting%n",
                    burstJobs, nodes, (sentAll - began) / 1e9, fits, (last - began) / 1e9, fits / ((last - began) / 1e9),
                    loop.status().waiting());
            // 3. rebuild: a new loop object rebuilds from the log of everything above.
            heartbeats.shutdownNow();
            heartbeats.awaitTermination(5, java.util.concurrent.TimeUnit.SECONDS);
            loop.stop();
            long restart = System.nanoTime();
            SchedulerLoop again = new SchedulerLoop(Settings.of(infra.bootstrapServers(), infra.registryUrl(), cluster)
                    .withLostAfter(Duration.ofHours(1)), null);
            again.start();
            waitUntil(() -> again.status().phase() == SchedulerLoop.Phase.RUNNING, 120);
            SchedulerLoop.Status st = again.status();
            System.out.printf(Locale.ROOT, "BENCH restart: rebuilt from %d log records in %d ms (ready after %.2f s), %d running jobs rebuilt%n",
                    st.rebuiltFromRecords(), st.rebuildMillis(), (System.nanoTime() - restart) / 1e9, st.running());
            again.stop();
        } finally {
            heartbeats.shutdownNow();
            loop.stop();
            tail.interrupt();
            tail.join(5000);
            producer.close();
        }
    }

    private static void waitUntil(java.util.function.BooleanSupplier condition, int seconds) throws InterruptedException {
        long deadline = System.nanoTime() + seconds * 1_000_000_000L;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("timed out");
            }
            Thread.sleep(1); // polling a measurement, not synchronising a test
        }
    }
}
