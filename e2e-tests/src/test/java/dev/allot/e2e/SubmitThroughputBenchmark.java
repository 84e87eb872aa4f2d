package dev.allot.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.schemas.NodeRegistered;
import dev.allot.schemas.NodeStatus;
import dev.allot.schemas.catalogue.Topics;
import dev.allot.testsupport.AllotInfra;
import dev.allot.testsupport.AllotInfrastructure;
import dev.allot.testsupport.TestTokens;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;

/**
 * Not part of the normal test run: {@code POST /jobs} throughput of a budget-service process (202 after Kafka's
 * ack) with a member's bearer token on every request, 32 client threads, and the service's own CPU per request.
 * {@code -Dallot.e2e.jar.budget-service=<quarkus-run.jar of a build without authentication>} measures that build
 * instead (it ignores the token): the difference is the cost of authentication. Each build is measured in a JVM of
 * its own, so on a broker and registry of its own: a registry holding today's job-requests schema refuses the
 * older build's version. Figures go to docs/benchmarks.md.
 */
@AllotInfra
class SubmitThroughputBenchmark {

    @Test
    void submissionsPerSecond(AllotInfrastructure infra) throws Exception {
        measure(infra, System.getProperty("allot.e2e.jar.budget-service"));
    }

    private static void measure(AllotInfrastructure infra, String jar) throws Exception {
        int requests = Integer.getInteger("bench.requests", 10_000);
        int warmup = Integer.getInteger("bench.warmup", 2_000);
        int threads = Integer.getInteger("bench.threads", 32);
        String cluster = "bench-" + UUID.randomUUID().toString().substring(0, 6);
        try (ServiceProcess budget = ServiceProcess.of("budget-service", infra.bootstrapServers(), infra.registryUrl(),
                Files.createTempDirectory("allot-bench-budget"), Map.of()).start()) {
            budget.awaitReady(Duration.ofMinutes(3));
            try (KafkaProducer<String, NodeStatus> producer = infra.producer()) {
                producer.send(new ProducerRecord<>(Topics.NODE_STATUS.name(), cluster + "-n1", NodeStatus.newBuilder()
                        .setEventId(UUID.randomUUID().toString()).setOccurredAt(Instant.now()).setNodeId(cluster + "-n1")
                        .setPayload(new NodeRegistered(cluster, 8, "fake", 1L, "bench", null)).build())).get();
            }
            AllotApi api = new AllotApi(budget.url());
            String lab = "lab" + cluster.substring(5);
            assertThat(api.send("PUT", "/budgets/" + lab, Map.of("share", 1)).status()).isEqualTo(200);
            assertThat(api.send("PUT", "/budgets/" + lab + "/team", Map.of("share", 1, "members", List.of("bench")))
                    .status()).isEqualTo(200);
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(30))
                    .until(() -> api.budgets().path("clusters").has(cluster));

            String authorization = "Bearer " + TestTokens.user("bench");
            HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
            String body = "{\"budget\":\"" + lab + "/team\",\"cluster\":\"" + cluster + "\",\"replicas\":1,"
                    + "\"gpusPerReplica\":1,\"minRuntimeSeconds\":60,\"command\":[\"true\"]}";
            // a generous timeout: on a shared, loaded machine a request can wait long for a core
            HttpRequest request = HttpRequest.newBuilder(URI.create(budget.url() + "/jobs"))
                    .timeout(Duration.ofSeconds(60)).header("Content-Type", "application/json")
                    .header("Authorization", authorization).POST(HttpRequest.BodyPublishers.ofString(body)).build();
            run(http, request, warmup, threads);
            long cpuBefore = ProcessStats.cpuMillis(budget.pid());
            long began = System.nanoTime();
            List<Double> millis = run(http, request, requests, threads);
            double seconds = (System.nanoTime() - began) / 1e9;
            // the service's own CPU per request: what authentication costs it, less sensitive to the machine's load
            double cpuPerRequest = (ProcessStats.cpuMillis(budget.pid()) - cpuBefore) / (double) requests;
            Collections.sort(millis);
            System.out.printf("BENCH POST /jobs with a bearer token, %d requests, %d threads: %.0f submissions/s,"
                            + " p50 %.1f ms, p99 %.1f ms, budget-service CPU %.2f ms per request (jar %s)%n", requests,
                    threads, requests / seconds, millis.get(millis.size() / 2),
                    millis.get((int) (millis.size() * 0.99)), cpuPerRequest, jar == null ? "this build" : jar);
        }
    }

    private static List<Double> run(HttpClient http, HttpRequest request, int count, int threads) throws Exception {
        AtomicInteger left = new AtomicInteger(count);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        List<Future<List<Double>>> results = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            results.add(pool.submit(() -> {
                List<Double> mine = new ArrayList<>();
                while (left.getAndDecrement() > 0) {
                    long start = System.nanoTime();
                    HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
                    mine.add((System.nanoTime() - start) / 1e6);
                    if (response.statusCode() != 202) {
                        throw new IllegalStateException("POST /jobs answered " + response.statusCode() + ": "
                                + response.body());
                    }
                }
                return mine;
            }));
        }
        List<Double> all = new ArrayList<>();
        for (Future<List<Double>> result : results) {
            all.addAll(result.get());
        }
        pool.shutdown();
        return all;
    }
}
