package dev.allot.e2e;

import dev.allot.schemas.BudgetDefined;
import dev.allot.schemas.BudgetEvent;
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
import dev.allot.testsupport.AllotInfra;
import dev.allot.testsupport.AllotInfrastructure;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;

/**
 * Not part of the normal run (run with
 * {@code ./mvnw -pl e2e-tests -am verify -Dtest=HistoryRestartBenchmark -Dsurefire.failIfNoSpecifiedTests=false}):
 * the log 100,000 finished jobs leave (each submitted, accepted, placed, started, exited, completed and one usage
 * tile, within the 7-day window, on 625 nodes of 8 GPUs), then the budget-service and the accounting-service as
 * real processes, each started on it, killed with SIGKILL and started again on the same state dir: seconds until
 * ready, and until it answers from the whole history (the last job COMPLETED; the cluster's usage summed to every
 * tile). The scheduler-service's figure is {@code bin/allot scheduler-bench -Dtest=RestartBenchmark}.
 */
@AllotInfra
class HistoryRestartBenchmark {

    @Test
    void restartOnTheHistoryOfManyJobs(AllotInfrastructure infra) throws Exception {
        int history = Integer.getInteger("bench.history.jobs", 100_000);
        int nodes = 625;
        String tag = UUID.randomUUID().toString().substring(0, 6);
        String cluster = "hist-" + tag;
        String root = "hist" + tag;
        String team = root + "/a";
        long t0 = System.currentTimeMillis() - Duration.ofDays(2).toMillis();
        long began = System.nanoTime();
        try (KafkaProducer<String, SpecificRecord> producer = infra.producer()) {
            send(producer, Topics.BUDGETS.name(), root, new BudgetEvent(UUID.randomUUID().toString(), Instant.now(),
                    new BudgetDefined(root, null, 1.0, Instant.now(), "bench", List.of(), List.of(), null)));
            send(producer, Topics.BUDGETS.name(), team, new BudgetEvent(UUID.randomUUID().toString(), Instant.now(),
                    new BudgetDefined(team, root, 1.0, Instant.now(), "bench", List.of(), List.of(), null)));
            for (int n = 0; n < nodes; n++) {
                String node = cluster + "-n" + n;
                send(producer, Topics.NODE_STATUS.name(), node, new NodeStatus(UUID.randomUUID().toString(),
                        Instant.ofEpochMilli(t0), node, new NodeRegistered(cluster, 8, "fake", 1L, "bench", null)));
            }
            for (int i = 0; i < history; i++) {
                String id = cluster + "-j" + i;
                long at = t0 + i * 1000L;
                String node = cluster + "-n" + (i % (nodes * 8)) / 8;
                send(producer, Topics.JOB_REQUESTS.name(), id, new JobRequest(UUID.randomUUID().toString(),
                        Instant.ofEpochMilli(at), new JobSubmitted(id, team, "bench", cluster, 1, 1, 60L, true, 0,
                        List.of("true"), Map.of(), Map.of(), null, Instant.ofEpochMilli(at), null)));
                job(producer, id, at, JobState.WAITING, JobAccepted.newBuilder().setBudget(team).setCluster(cluster)
                        .setChargeMode(ChargeMode.ALLOCATED).setQueuedAt(Instant.ofEpochMilli(at)).setReplicas(1)
                        .setGpusPerReplica(1).setMinRuntimeSeconds(60).setResumable(true).build());
                job(producer, id, at + 1, JobState.RUNNING, new JobPlaced(cluster, team,
                        List.of(new GpuAssignment(node, 1L, 0, List.of(i % 8))), ChargeMode.ALLOCATED,
                        Instant.ofEpochMilli(at + 60_001), 1, "free GPUs", false));
                job(producer, id, at + 2, null, new JobStarted(node, 1L, 0, 1000L + i));
                send(producer, Topics.USAGE.name(), id, new UsageReported(id, team, cluster, node, 1,
                        Instant.ofEpochMilli(at + 2), Instant.ofEpochMilli(at + 502), 0.5, ChargeMode.ALLOCATED, null));
                job(producer, id, at + 502, null, new JobExited(node, 0, 0, false));
                job(producer, id, at + 502, JobState.COMPLETED, new JobCompleted(0.5));
                if (i % 20_000 == 19_999) {
                    System.out.printf(Locale.ROOT, "BENCH history: %d of %d jobs written%n", i + 1, history);
                }
            }
            producer.flush();
        }
        System.out.printf(Locale.ROOT, "BENCH history: %d jobs (%d records) written in %.1f s%n", history,
                history * 7 + nodes + 2, (System.nanoTime() - began) / 1e9);

        Path state = Files.createTempDirectory("allot-history-" + cluster);
        String last = cluster + "-j" + (history - 1);
        ServiceProcess budget = ServiceProcess.of("budget-service", infra.bootstrapServers(), infra.registryUrl(),
                state.resolve("budget"), Map.of("kafka.group.id", "budget-" + cluster));
        ServiceProcess accounting = ServiceProcess.of("accounting-service", infra.bootstrapServers(),
                infra.registryUrl(), state.resolve("accounting"), Map.of(
                        "quarkus.kafka-streams.application-id", "allot-accounting-" + cluster,
                        "allot.accounting.instance-id", cluster + "-0",
                        "kafka-streams.state.dir", state.resolve("accounting/streams").toString(),
                        "kafka-streams.commit.interval.ms", "1000"));
        double expected = history * 0.5;
        try {
            for (String round : List.of("first start", "restart after SIGKILL")) {
                if (round.startsWith("restart")) {
                    budget.kill();
                    budget = budget.again();
                }
                long start = System.nanoTime();
                budget.start().awaitReady(Duration.ofMinutes(10));
                double ready = seconds(start);
                AllotApi api = new AllotApi(budget.url());
                awaitTrue(Duration.ofMinutes(10), () -> "COMPLETED".equals(api.state(last)));
                System.out.printf(Locale.ROOT, "BENCH history budget-service, %s: ready after %.2f s, the last of %d"
                        + " jobs COMPLETED in its view after %.2f s (load %s)%n", round, ready, history, seconds(start),
                        load());
            }
            for (String round : List.of("first start", "restart after SIGKILL")) {
                if (round.startsWith("restart")) {
                    accounting.kill();
                    accounting = accounting.again();
                }
                long start = System.nanoTime();
                accounting.start().awaitReady(Duration.ofMinutes(10));
                double ready = seconds(start);
                AllotApi api = new AllotApi(budget.url());
                String url = accounting.url() + "/accounting/usage?cluster=" + cluster + "&account=" + team
                        + "&asOf=" + System.currentTimeMillis();
                awaitTrue(Duration.ofMinutes(10), () -> {
                    var u = api.json(url);
                    return Math.abs(u.get("chargedGpuSeconds").asDouble() + u.get("unallocatedGpuSeconds").asDouble()
                            - expected) < 1e-6;
                });
                System.out.printf(Locale.ROOT, "BENCH history accounting-service, %s: ready after %.2f s, the usage"
                        + " of all %d tiles (%.1f GPU-s) answered after %.2f s (load %s)%n", round, ready, history,
                        expected, seconds(start), load());
            }
        } finally {
            for (ServiceProcess service : List.of(budget, accounting)) {
                try {
                    service.stop();
                } catch (RuntimeException notStarted) {
                    // the round that failed never started it
                }
            }
        }
    }

    private static void awaitTrue(Duration atMost, java.util.concurrent.Callable<Boolean> condition) {
        org.awaitility.Awaitility.await().atMost(atMost).pollInterval(Duration.ofMillis(100)).ignoreExceptions()
                .until(condition);
    }

    private static double seconds(long since) {
        return (System.nanoTime() - since) / 1e9;
    }

    private static String load() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).trim();
        } catch (java.io.IOException e) {
            return "?";
        }
    }

    private static void send(KafkaProducer<String, SpecificRecord> producer, String topic, String key,
                             SpecificRecord value) {
        producer.send(new ProducerRecord<>(topic, key, value));
    }

    private static void job(KafkaProducer<String, SpecificRecord> producer, String id, long at, JobState after,
                            Object payload) {
        send(producer, Topics.JOB_EVENTS.name(), id, new JobEvent(UUID.randomUUID().toString(),
                Instant.ofEpochMilli(at), id, after, payload));
    }
}
