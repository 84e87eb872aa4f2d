package dev.allot.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.allot.edge.security.KafkaSecurity;
import dev.allot.schemas.NodeRegistered;
import dev.allot.schemas.NodeStatus;
import dev.allot.schemas.catalogue.Topics;
import dev.allot.testsupport.AllotInfrastructure;
import java.time.Instant;
import java.time.Duration;
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

/**
 * {@link ScaleBenchmark}'s scale-out: more budget-service and accounting-service instances beside the system's one of
 * each. Budget-services read the whole log each (no consumer group), so any of them takes any request; the
 * accounting-services share one Streams application (one static id each), so the tasks are rebalanced over them
 * and an interactive query is answered by the instance that owns the cluster, forwarded by any other.
 */
final class ScaleOut implements AutoCloseable {

    final List<ServiceProcess> budgets = new ArrayList<>();
    final List<ServiceProcess> accountings = new ArrayList<>();
    private final List<ServiceProcess> extras = new ArrayList<>();
    /** Asks the accounting-services (plain GETs of their own API). */
    private final AllotApi http;

    private ScaleOut(AllotSystem system) {
        budgets.add(system.budget);
        accountings.add(system.accounting);
        http = new AllotApi(system.budget.url());
    }

    /** Starts the extra instances; the accounting-services are serving when each answers every cluster's usage. */
    static ScaleOut start(AllotInfrastructure infra, AllotSystem system, List<String> clusters, int budgetInstances,
                          int accountingInstances, String account) throws Exception {
        ScaleOut out = new ScaleOut(system);
        try {
            for (int i = 1; i < budgetInstances; i++) {
                out.budgets.add(out.extra(ServiceProcess.of("budget-service", infra.bootstrapServers(), infra.registryUrl(),
                        system.stateDir.resolve("budget-" + i), Map.of("kafka.group.id", "budget-" + system.cluster + "-" + i))));
            }
            long began = System.nanoTime();
            for (int i = 1; i < accountingInstances; i++) {
                out.accountings.add(out.extra(ServiceProcess.accounting(infra.bootstrapServers(),
                        infra.registryUrl(), system.stateDir.resolve("accounting-" + i), system.cluster, i, 200,
                        Map.of("allot.accounting.metrics-interval", "1s"), KafkaSecurity.PLAINTEXT)));
            }
            for (ServiceProcess p : out.extras) {
                p.awaitReady(Duration.ofMinutes(3));
            }
            if (accountingInstances > 1) {
                org.awaitility.Awaitility.await().atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(200))
                        .ignoreExceptions().until(() -> out.usageFromEach(clusters, account, System.currentTimeMillis())
                                .size() == accountingInstances * clusters.size());
                System.out.printf("BENCH scale-out accounting-service: %d instances of one Streams application; every"
                                + " instance answers every cluster's usage %.1f s after the extra ones were started%n",
                        accountingInstances, (System.nanoTime() - began) / 1e9);
            }
        } catch (Exception | AssertionError e) {
            out.close();
            throw e;
        }
        return out;
    }

    private ServiceProcess extra(ServiceProcess process) throws Exception {
        extras.add(process);
        return process.start();
    }

    List<AllotApi> apis() {
        return budgets.stream().map(b -> new AllotApi(b.url())).toList();
    }

    /**
     * The account's usage on each cluster from each accounting-service at one instant, as "charged+unallocated"
     * GPU-seconds (cluster by cluster, instance by instance).
     */
    List<String> usageFromEach(List<String> clusters, String account, long asOf) {
        List<String> usage = new ArrayList<>();
        for (String cluster : clusters) {
            for (ServiceProcess accounting : accountings) {
                JsonNode u = usage(accounting, cluster, account, asOf);
                usage.add(u.get("chargedGpuSeconds").asDouble() + "+" + u.get("unallocatedGpuSeconds").asDouble());
            }
        }
        return usage;
    }

    /** The account's charged plus unallocated GPU-seconds on the cluster now, from the first accounting-service. */
    double usedGpuSeconds(String cluster, String account) {
        JsonNode u = usage(accountings.get(0), cluster, account, System.currentTimeMillis());
        return u.get("chargedGpuSeconds").asDouble() + u.get("unallocatedGpuSeconds").asDouble();
    }

    private JsonNode usage(ServiceProcess accounting, String cluster, String account, long asOf) {
        return http.json(accounting.url() + "/accounting/usage?cluster=" + cluster + "&account=" + account
                + "&asOf=" + asOf);
    }

    /**
     * Once the account has usage on every cluster, every accounting-service gives the same figures for it (the
     * owner's, forwarded).
     */
    void checkQueries(List<String> clusters, String account) {
        org.awaitility.Awaitility.await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(500))
                .until(() -> usageFromEach(clusters, account, System.currentTimeMillis()).stream()
                        .noneMatch("0.0+0.0"::equals));
        long asOf = System.currentTimeMillis();
        List<String> usage = usageFromEach(clusters, account, asOf);
        int n = accountings.size();
        for (int c = 0; c < clusters.size(); c++) {
            assertThat(usage.subList(c * n, c * n + n)).as("usage on %s from each instance", clusters.get(c))
                    .containsOnly(usage.get(c * n));
        }
        System.out.printf("BENCH scale-out interactive queries: %d accounting-service instance(s) answer the same"
                + " charged+unallocated GPU-s for %s on each cluster: %s%n", n, account, usage);
    }

    /**
     * {@code jobs} submissions through {@code POST /jobs} from {@code threads} clients, spread over the budget-service
     * instances in turn; prints the accepted rate and the round trips. They go to a cluster of their own that no
     * scheduler serves (one node registered straight onto node-status): what is measured is accepting submissions,
     * not the machine's two cores also starting each accepted job's processes.
     */
    void restBurst(AllotInfrastructure infra, int jobs, int threads, String run, String budget) throws Exception {
        String cluster = "scale-rest-" + run;
        try (KafkaProducer<String, NodeStatus> producer = infra.producer()) {
            producer.send(new ProducerRecord<>(Topics.NODE_STATUS.name(), cluster + "-n1", NodeStatus.newBuilder()
                    .setEventId(UUID.randomUUID().toString()).setOccurredAt(Instant.now()).setNodeId(cluster + "-n1")
                    .setPayload(new NodeRegistered(cluster, 8, "fake", 1L, "bench", null)).build())).get();
        }
        long registered = System.nanoTime();
        for (AllotApi api : apis()) {
            // behind on a long log (the sustained phase's), a budget-service takes a while to read the registration
            org.awaitility.Awaitility.await().atMost(Duration.ofMinutes(5)).pollInterval(Duration.ofMillis(200))
                    .until(() -> api.budgets().path("clusters").has(cluster));
        }
        List<AllotApi> apis = apis();
        List<Double> millis = Collections.synchronizedList(new ArrayList<>());
        AtomicInteger next = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        long began = System.nanoTime();
        try {
            List<Future<?>> clients = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                clients.add(pool.submit(() -> {
                    for (int i = next.getAndIncrement(); i < jobs; i = next.getAndIncrement()) {
                        long t0 = System.nanoTime();
                        apis.get(i % apis.size()).submit(Map.of("id", "scale-" + run + "-rest-" + i, "budget", budget,
                                "cluster", cluster, "replicas", 1, "gpusPerReplica", 1,
                                "minRuntimeSeconds", 0, "command", List.of("true")));
                        millis.add((System.nanoTime() - t0) / 1e6);
                    }
                    return null;
                }));
            }
            for (Future<?> client : clients) {
                client.get();
            }
        } finally {
            pool.shutdownNow();
        }
        double seconds = (System.nanoTime() - began) / 1e9;
        System.out.printf("BENCH scale REST burst: %d jobs through POST /jobs from %d clients over %d budget-service"
                        + " instance(s): %.0f accepted/s, POST p50 %.1f ms p99 %.1f ms (its cluster's node known to every"
                        + " instance %.1f s after its registration)%n", jobs, threads, apis.size(),
                jobs / seconds, ScaleBenchmark.pct(millis, 0.50), ScaleBenchmark.pct(millis, 0.99), (began - registered) / 1e9);
    }

    @Override
    public void close() throws Exception {
        for (ServiceProcess p : extras) {
            p.close();
        }
    }
}
