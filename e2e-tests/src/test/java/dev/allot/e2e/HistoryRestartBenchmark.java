package dev.allot.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.edge.security.KafkaSecurity;
import dev.allot.schemas.BudgetDefined;
import dev.allot.schemas.BudgetEvent;
import dev.allot.schemas.catalogue.Topics;
import dev.allot.testsupport.AllotInfra;
import dev.allot.testsupport.AllotInfrastructure;
import dev.allot.testsupport.JobHistory;
import dev.allot.testsupport.PrometheusText;
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
            JobHistory writer = new JobHistory(producer, cluster, team, nodes);
            writer.registerNodes(t0);
            writer.writeJobs(t0, history, 0, written -> {
                if (written % 20_000 == 0) {
                    System.out.printf(Locale.ROOT, "BENCH history: %d of %d jobs written%n", written, history);
                }
            });
        }
        System.out.printf(Locale.ROOT, "BENCH history: %d jobs (%d records) written in %.1f s%n", history,
                history * JobHistory.RECORDS_PER_FINISHED_JOB + nodes + 2, (System.nanoTime() - began) / 1e9);

        Path state = Files.createTempDirectory("allot-history-" + cluster);
        String last = JobHistory.jobId(cluster, history - 1);
        ServiceProcess budget = ServiceProcess.of("budget-service", infra.bootstrapServers(), infra.registryUrl(),
                state.resolve("budget"), Map.of("kafka.group.id", "budget-" + cluster));
        ServiceProcess accounting = ServiceProcess.accounting(infra.bootstrapServers(), infra.registryUrl(),
                state.resolve("accounting"), cluster, 0, 1000, Map.of(), KafkaSecurity.PLAINTEXT);
        double expected = history * JobHistory.GPU_SECONDS_PER_FINISHED_JOB;
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
                double completed = seconds(start);
                String metrics = api.text(budget.url() + "/q/metrics");
                double asFacts = PrometheusText.value(metrics, "allot_budget_jobs_finished_as_facts");
                System.out.printf(Locale.ROOT, "BENCH history budget-service, %s: ready after %.2f s, the last of %d"
                        + " jobs COMPLETED in its view after %.2f s; %.0f finished jobs kept as facts, %.0f facts"
                        + " applied to a job kept as facts (load %s)%n", round, ready, history, completed, asFacts,
                        PrometheusText.value(metrics, "allot_budget_jobs_reopened_total"), load());
                assertThat(asFacts).as("all but the most recently finished jobs kept as facts")
                        .isGreaterThanOrEqualTo(history - 4096);
                long[] listNanos = new long[21];
                for (int call = 0; call < listNanos.length; call++) {
                    long sent = System.nanoTime();
                    var page = api.jobs("state=COMPLETED&limit=10");
                    listNanos[call] = System.nanoTime() - sent;
                    assertThat(page.get("count").asInt()).isEqualTo(history);
                    assertThat(page.get("jobs").get(0).get("id").asText()).isEqualTo(last);
                }
                java.util.Arrays.sort(listNanos);
                System.out.printf(Locale.ROOT, "BENCH history budget-service, %s: GET /jobs?state=COMPLETED&limit=10"
                        + " over %d jobs: p50 %.1f ms, max %.1f ms (%d calls)%n", round, history,
                        listNanos[listNanos.length / 2] / 1e6, listNanos[listNanos.length - 1] / 1e6, listNanos.length);
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
}
