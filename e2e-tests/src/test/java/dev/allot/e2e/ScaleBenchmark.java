package dev.allot.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.schemas.JobEvent;
import dev.allot.schemas.JobPlaced;
import dev.allot.schemas.JobRequest;
import dev.allot.schemas.JobStarted;
import dev.allot.schemas.JobSubmitted;
import dev.allot.schemas.catalogue.Topics;
import dev.allot.testsupport.AllotInfra;
import dev.allot.testsupport.AllotInfrastructure;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;

/**
 * Not part of the normal test run ({@code bin/allot bench}): the whole system at scale on one machine.
 * Two clusters, each with its scheduler and one node agent process hosting half of {@code bench.nodes}
 * fake nodes of 8 GPUs (1,024 x 8 in all by default), one budget-service and one accounting-service.
 * <ol>
 *   <li>idle: {@code bench.idle} jobs one after another through {@code POST /jobs}, each awaited:
 *   POST round trip, submit -> JobPlaced (the scheduler's StartJob is in the same transaction) and
 *   submit -> JobStarted (the agent's process runs);</li>
 *   <li>sustained: {@code bench.jobs} 1-GPU jobs produced straight onto job-requests as fast as the
 *   producer goes, both clusters; jobs placed and started per second end to end, and the same latencies.</li>
 * </ol>
 * Prints BENCH lines, and each component's CPU seconds and peak RSS over the run.
 */
@AllotInfra
class ScaleBenchmark {

    private static final Duration PROGRESS_EVERY = Duration.ofSeconds(10);
    private static final int REST_CLIENTS = 8;
    /**
     * Both clusters' schedulers: the service's own settings (estimates every 5 s, INFO logs) but a pass every 250 ms.
     * Not the tests' (estimates every second, DEBUG decisions): with them cluster a's scheduler took 1.6-2.1x b's CPU
     * at 3,000/s, and the two clusters together placed 2,224-2,488 jobs/s instead of 2,982.
     */
    private static final Map<String, String> SCHEDULER = Map.of("allot.scheduler.tick", "250ms");

    private final Map<String, Instant> sent = new ConcurrentHashMap<>();
    private final Map<String, Instant> placed = new ConcurrentHashMap<>();
    private final Map<String, Instant> started = new ConcurrentHashMap<>();

    @Test
    void twoClustersOf512NodesEach(AllotInfrastructure infra) throws Exception {
        int nodes = Integer.getInteger("bench.nodes", 1024);
        int gpus = Integer.getInteger("bench.gpus", 8);
        int idle = Integer.getInteger("bench.idle", 100);
        // a rate paces the sustained phase (jobs a second for bench.seconds); without one it is a burst of bench.jobs
        double rate = Double.parseDouble(System.getProperty("bench.rate", "0"));
        int jobs = rate > 0 ? (int) Math.round(rate * Integer.getInteger("bench.seconds", 60))
                : Integer.getInteger("bench.jobs", 20_000);
        int restJobs = Integer.getInteger("bench.rest-jobs", 1_000);
        int budgetInstances = Integer.getInteger("bench.budget-services", 1);
        int accountingInstances = Integer.getInteger("bench.accounting-services", 1);
        // "processes": node agents that start every replica's process; "fake": the control plane alone (FakeExecutor)
        boolean fake = "fake".equals(System.getProperty("bench.executor", "processes"));
        Duration fakeRun = Duration.ofMillis(Long.getLong("bench.fake-run-millis", 0));
        String run = UUID.randomUUID().toString().substring(0, 6);
        List<String> clusters = List.of("scale-a-" + run, "scale-b-" + run);
        Path marker = Files.createTempDirectory("allot-scale");
        long began = System.nanoTime();
        try (FakeExecutor executor = fake ? new FakeExecutor(infra, Map.of(clusters.get(0), nodes / 2, clusters.get(1),
                     nodes - nodes / 2), gpus, fakeRun).start() : null;
             AllotSystem system = AllotSystem.start(infra, clusters.get(0), fake ? 0 : nodes / 2, gpus, SCHEDULER);
             ServiceProcess schedulerB = ServiceProcess.of("scheduler-service", infra.bootstrapServers(), infra.registryUrl(),
                     system.stateDir.resolve("scheduler-b"), with(SCHEDULER, "allot.scheduler.cluster", clusters.get(1)))
                     .start();
             ServiceProcess agentB = fake ? null : ServiceProcess.of("node-agent", infra.bootstrapServers(), infra.registryUrl(),
                     system.stateDir.resolve("agent-b"), Map.of("allot.agent.cluster", clusters.get(1),
                             "allot.agent.fake-nodes", String.valueOf(nodes - nodes / 2),
                             "allot.agent.gpus-per-node", String.valueOf(gpus),
                             "allot.agent.state-dir", system.stateDir.resolve("agent-b").toString(),
                             "allot.agent.heartbeat-interval", "2s", "allot.agent.usage-interval", "30s")).start()) {
            schedulerB.awaitReady(Duration.ofMinutes(3));
            if (agentB != null) {
                agentB.awaitReady(Duration.ofMinutes(3));
            }
            Map<String, ServiceProcess> components = new LinkedHashMap<>();
            components.put("budget-service", system.budget);
            components.put("accounting-service", system.accounting);
            components.put("scheduler-service a", system.scheduler);
            components.put("scheduler-service b", schedulerB);
            if (!fake) {
                components.put("node-agent a (" + nodes / 2 + " nodes)", system.agent);
                components.put("node-agent b (" + (nodes - nodes / 2) + " nodes)", agentB);
            }
            System.out.printf("BENCH scale: %d nodes x %d GPUs in 2 clusters, %s, up in %.1f s%n", nodes, gpus,
                    fake ? "fake executor (no process per replica; each exits " + fakeRun.toMillis() + " ms after its start)"
                            : "node agents starting every replica's process",
                    (System.nanoTime() - began) / 1e9);
            String lab = "scale" + run;
            system.api.putBudget(lab, 1);
            system.api.putBudget(lab + "/team", 1);
            ScaleOut scaleOut = ScaleOut.start(infra, system, clusters, budgetInstances, accountingInstances, lab + "/team");
            try (scaleOut) {
                for (int i = 1; i < scaleOut.budgets.size(); i++) {
                    components.put("budget-service " + i, scaleOut.budgets.get(i));
                }
                for (int i = 1; i < scaleOut.accountings.size(); i++) {
                    components.put("accounting-service " + i, scaleOut.accountings.get(i));
                }
                List<AllotApi> apis = scaleOut.apis();
                Map<String, Long> cpuBefore = new LinkedHashMap<>();
                components.forEach((name, p) -> cpuBefore.put(name, ProcessStats.cpuMillis(p.pid())));
                long brokerBefore = ProcessStats.cpuMillis(ProcessHandle.current().pid());
                Map<Long, ProcessStats.ThreadCpu> threadsBefore = ProcessStats.threadCpu();
                Map<String, Long> childrenBefore = new LinkedHashMap<>();
                components.forEach((name, p) -> childrenBefore.put(name, ProcessStats.childrenCpuMillis(p.pid())));
                try (KafkaProducer<String, JobRequest> producer = infra.producer();
                     KafkaConsumer<String, JobEvent> events = infra.consumer(JobEvent.class)) {
                    events.subscribe(Set.of(Topics.JOB_EVENTS.name()));
                    // joined and positioned before the first submission: under load one short poll may not be
                    // enough, and a position taken later would start past the first jobs' events
                    org.awaitility.Awaitility.await().atMost(Duration.ofMinutes(2)).until(() -> {
                        events.poll(Duration.ofMillis(100));
                        return !events.assignment().isEmpty();
                    });
                    events.assignment().forEach(events::position);

                    // 1. idle: one job after another through the API
                    List<Double> postMs = new ArrayList<>();
                    List<String> idleIds = new ArrayList<>(); // in the order submitted
                    for (int i = 0; i < idle; i++) {
                        String id = "scale-" + run + "-idle-" + i;
                        idleIds.add(id);
                        long t0 = System.nanoTime();
                        sent.put(id, Instant.now());
                        apis.get(i % apis.size()).submit(Map.of("id", id, "budget", lab + "/team", "cluster", clusters.get(i % 2),
                                "replicas", 1, "gpusPerReplica", 1, "minRuntimeSeconds", 0, "command", List.of("true")));
                        postMs.add((System.nanoTime() - t0) / 1e6);
                        awaitStarted(events, Set.of(id), Duration.ofSeconds(60));
                    }
                    System.out.printf("BENCH scale idle, %d jobs one at a time over REST: POST p50 %.1f ms p99 %.1f ms;"
                                    + " submit->StartJob p50 %.1f ms p99 %.1f ms; submit->process running p50 %.1f ms p99 %.1f ms%n",
                            idle, pct(postMs, 0.5), pct(postMs, 0.99), pct(latencies(idleIds, placed), 0.5),
                            pct(latencies(idleIds, placed), 0.99), pct(latencies(idleIds, started), 0.5),
                            pct(latencies(idleIds, started), 0.99));
                    System.out.println("BENCH scale idle, the 5 slowest (submission index: submit->StartJob, ->running): "
                            + slowest(idleIds, 5));

                    // 2. sustained: straight onto job-requests, as fast as the producer goes or at the rate asked
                    List<String> ids = new ArrayList<>();
                    Instant first = Instant.now();
                    long firstNanos = System.nanoTime();
                    long nextProgress = firstNanos + PROGRESS_EVERY.toNanos();
                    for (int i = 0; i < jobs; i++) {
                        if (rate > 0) {
                            long due = firstNanos + (long) (i * 1e9 / rate);
                            for (long wait; (wait = due - System.nanoTime()) > 0; ) {
                                java.util.concurrent.locks.LockSupport.parkNanos(wait);
                            }
                            if (System.nanoTime() >= nextProgress) {
                                System.out.printf("BENCH progress: %d of %d produced%n", i, jobs);
                                nextProgress += PROGRESS_EVERY.toNanos();
                            }
                        }
                        String id = "scale-" + run + "-" + i;
                        ids.add(id);
                        Instant now = Instant.now();
                        sent.put(id, now);
                        producer.send(new ProducerRecord<>(Topics.JOB_REQUESTS.name(), id, JobRequest.newBuilder()
                                .setEventId(UUID.randomUUID().toString()).setOccurredAt(now)
                                .setPayload(JobSubmitted.newBuilder().setJobId(id).setBudget(lab + "/team")
                                        .setSubmitter("bench").setCluster(clusters.get(i % 2)).setReplicas(1)
                                        .setGpusPerReplica(1).setMinRuntimeSeconds(0).setResumable(true)
                                        .setCommand(List.of("true")).setEnv(Map.of("M", marker.toString()))
                                        .setExpectedDurationSeconds(null).setSubmittedAt(now).build())
                                .build()));
                    }
                    producer.flush();
                    double produceS = Duration.between(first, Instant.now()).toMillis() / 1e3;
                    // a 2-core machine that runs every job's processes starts ~35 jobs a second: the default 20,000
                    // need more than the 10 minutes that suit smaller runs (-Dbench.timeout.minutes to choose)
                    awaitStarted(events, Set.copyOf(ids), Duration.ofMinutes(
                            Integer.getInteger("bench.timeout.minutes", Math.max(10, jobs / 1_000))));
                    Instant lastPlaced = ids.stream().map(placed::get).max(Instant::compareTo).orElseThrow();
                    Instant lastStarted = ids.stream().map(started::get).max(Instant::compareTo).orElseThrow();
                    double placedS = Duration.between(first, lastPlaced).toMillis() / 1e3;
                    double startedS = Duration.between(first, lastStarted).toMillis() / 1e3;
                    System.out.printf("BENCH scale sustained, %d 1-GPU jobs onto job-requests (produced in %.1f s, %.0f/s):"
                                    + " all placed in %.1f s = %.0f jobs/s, all %s in %.1f s = %.0f jobs/s;"
                                    + " submit->StartJob p50 %.0f ms p99 %.0f ms; submit->process running p50 %.0f ms p99 %.0f ms%n",
                            jobs, produceS, jobs / produceS, placedS, jobs / placedS, fake ? "started (fake executor)" : "processes started",
                            startedS, jobs / startedS,
                            pct(latencies(ids, placed), 0.5), pct(latencies(ids, placed), 0.99),
                            pct(latencies(ids, started), 0.5), pct(latencies(ids, started), 0.99));
                    if (rate > 0) {
                        // kept up or fell behind: a backlog shows as latencies that grow from one window to the next
                        int perWindow = (int) Math.max(1, Math.round(rate * PROGRESS_EVERY.toSeconds()));
                        List<String> windows = new ArrayList<>();
                        for (int from = 0; from < ids.size(); from += perWindow) {
                            List<String> window = ids.subList(from, Math.min(ids.size(), from + perWindow));
                            windows.add(String.format("%d-%d s: p50 %.0f / p99 %.0f ms", from / perWindow * PROGRESS_EVERY.toSeconds(),
                                    (from / perWindow + 1) * PROGRESS_EVERY.toSeconds(), pct(latencies(window, placed), 0.5),
                                    pct(latencies(window, placed), 0.99)));
                        }
                        System.out.printf("BENCH scale sustained at %.0f/s, submit->StartJob by when submitted: %s%n", rate,
                                String.join("; ", windows));
                    }

                    if (executor != null) {
                        caughtUp(executor, scaleOut, apis.get(0), clusters, lab + "/team", idle + jobs);
                    }

                    // 3. interactive queries from every accounting-service; 4. POST /jobs from many clients
                    scaleOut.checkQueries(clusters, lab + "/team");
                    scaleOut.restBurst(infra, restJobs, REST_CLIENTS, run, lab + "/team");
                }
                Map<String, Long> childrenMillis = new LinkedHashMap<>();
                components.forEach((name, p) -> childrenMillis.put(name, ProcessStats.childrenCpuMillis(p.pid()) - childrenBefore.get(name)));
                components.forEach((name, p) -> System.out.printf("BENCH scale component %s: CPU %.1f s over the run, peak RSS %d MB%s%n",
                        name, (ProcessStats.cpuMillis(p.pid()) - cpuBefore.get(name)) / 1e3, ProcessStats.peakRssMb(p.pid()),
                        childrenMillis.get(name) > 0
                                ? String.format(", its children (job processes) %.1f s", childrenMillis.get(name) / 1e3) : ""));
                System.out.printf("BENCH scale component in-JVM broker and the benchmark's own clients%s (this JVM): CPU %.1f s over the run%n",
                        fake ? " and the fake executor" : "",
                        (ProcessStats.cpuMillis(ProcessHandle.current().pid()) - brokerBefore) / 1e3);
                // which of this JVM's threads: the broker's, the fake executor's, the benchmark's own clients'
                Map<Long, ProcessStats.ThreadCpu> threadsAfter = ProcessStats.threadCpu();
                System.out.println("BENCH scale this JVM's Java threads, CPU s over the run: "
                        + seconds(ProcessStats.threadCpuMillisByGroup(threadsBefore, threadsAfter, ScaleBenchmark::threadGroup)
                                .entrySet().stream())
                        + " (the rest of the JVM's CPU: GC, JIT); the busiest: "
                        + seconds(ProcessStats.threadCpuMillisByGroup(threadsBefore, threadsAfter, name -> name)
                                .entrySet().stream().sorted(Map.Entry.<String, Long>comparingByValue().reversed()).limit(6)));
                long jobProcessesMillis = childrenMillis.values().stream().mapToLong(Long::longValue).sum();
                // what starting and running the jobs' processes costs, next to the services: on a small machine the
                // bound of end-to-end throughput with real processes
                System.out.printf("BENCH scale job processes: CPU %.1f s for %d jobs = %.1f ms per job%n", jobProcessesMillis / 1e3,
                        idle + jobs, jobProcessesMillis / (double) (idle + jobs));
            }
        }
    }

    /**
     * The rest of the system after the schedulers: how long after the fake executor's last exit the accounting-service
     * holds every GPU-second it reported (on each cluster) and the budget-service's view has every job completed.
     */
    private static void caughtUp(FakeExecutor executor, ScaleOut scaleOut, AllotApi api, List<String> clusters,
                                 String account, int jobs) {
        // the counts in the message are those of the last look, not of the first
        org.awaitility.Awaitility.await().atMost(Duration.ofMinutes(5)).untilAsserted(() -> assertThat(executor.exited.get())
                .as("the fake executor's exits (%d started)", executor.started.get()).isGreaterThanOrEqualTo(jobs));
        long last = executor.lastExitNanos;
        List<String> parts = new ArrayList<>();
        for (String cluster : clusters) {
            double reported = executor.reportedGpuSeconds.get(cluster).sum();
            org.awaitility.Awaitility.await().atMost(Duration.ofMinutes(Long.getLong("bench.catch-up-minutes", 5)))
                    .pollInterval(Duration.ofMillis(200)).ignoreExceptions()
                    .untilAsserted(() -> assertThat(scaleOut.usedGpuSeconds(cluster, account))
                            .as("GPU-s the accounting-service holds of the %.6f reported on %s", reported, cluster)
                            .isGreaterThanOrEqualTo(reported * (1 - 1e-9) - 1e-6));
            parts.add(String.format("accounting holds %s's %.1f GPU-s %.1f s after the last exit", cluster, reported,
                    (System.nanoTime() - last) / 1e9));
        }
        // a service that is far behind may also answer slowly: a timed-out query is asked again
        org.awaitility.Awaitility.await().atMost(Duration.ofMinutes(5)).pollInterval(Duration.ofMillis(200))
                .ignoreExceptions()
                .until(() -> api.jobs("state=COMPLETED&limit=1").path("count").asInt() >= jobs);
        parts.add(String.format("the budget-service's view has all %d jobs COMPLETED %.1f s after it", jobs,
                (System.nanoTime() - last) / 1e9));
        System.out.println("BENCH scale caught up: " + String.join("; ", parts));
    }

    private void awaitStarted(KafkaConsumer<String, JobEvent> events, Set<String> ids, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        long nextProgress = System.nanoTime() + PROGRESS_EVERY.toNanos();
        int placedBefore = placed.size();
        int startedBefore = started.size();
        // what is still to start, shrunk as starts come (not a containsAll over every id at each poll)
        Set<String> waiting = new java.util.HashSet<>(ids);
        waiting.removeAll(started.keySet());
        while (!waiting.isEmpty() && System.nanoTime() < deadline) {
            if (ids.size() > 1 && System.nanoTime() >= nextProgress) {
                // a long wait shows how it goes: placements and starts per second over the last interval
                System.out.printf("BENCH progress: %d placed (+%.0f/s), %d started (+%.0f/s) of %d%n",
                        placed.size(), (placed.size() - placedBefore) / (double) PROGRESS_EVERY.toSeconds(),
                        started.size(), (started.size() - startedBefore) / (double) PROGRESS_EVERY.toSeconds(),
                        sent.size());
                placedBefore = placed.size();
                startedBefore = started.size();
                nextProgress += PROGRESS_EVERY.toNanos();
            }
            for (ConsumerRecord<String, JobEvent> r : events.poll(Duration.ofMillis(5))) {
                Instant at = Instant.ofEpochMilli(r.timestamp());
                if (r.value().getPayload() instanceof JobPlaced) {
                    placed.putIfAbsent(r.key(), at);
                } else if (r.value().getPayload() instanceof JobStarted) {
                    started.putIfAbsent(r.key(), at);
                    waiting.remove(r.key());
                }
            }
        }
        // not containsAll over the started map: AssertJ compares every pair (24 s for 60,000 jobs, before the
        // catch-up figures are taken)
        assertThat(waiting).as("jobs not started within %s", timeout).isEmpty();
    }

    private List<Double> latencies(List<String> ids, Map<String, Instant> at) {
        List<Double> ms = new ArrayList<>();
        for (String id : ids) {
            if (at.containsKey(id)) {
                ms.add((double) millis(id, at));
            }
        }
        ms.sort(Double::compare);
        return ms;
    }

    /** The n jobs slowest to be placed, with their place in the submission order (early ones meet a cold JVM). */
    private String slowest(List<String> ids, int n) {
        List<Integer> order = new ArrayList<>();
        for (int i = 0; i < ids.size(); i++) {
            if (placed.containsKey(ids.get(i))) {
                order.add(i);
            }
        }
        order.sort((a, b) -> Long.compare(millis(ids.get(b), placed), millis(ids.get(a), placed)));
        List<String> parts = new ArrayList<>();
        for (int i : order.subList(0, Math.min(n, order.size()))) {
            parts.add(String.format("#%d: %d ms, %d ms", i, millis(ids.get(i), placed), millis(ids.get(i), started)));
        }
        return String.join("; ", parts);
    }

    private long millis(String id, Map<String, Instant> at) {
        Instant t = at.get(id);
        return t == null ? -1 : Duration.between(sent.get(id), t).toMillis();
    }

    /** "name seconds, ..." of CPU milliseconds by name. */
    private static String seconds(java.util.stream.Stream<Map.Entry<String, Long>> millisByName) {
        return millisByName.map(e -> String.format("%s %.1f", e.getKey(), e.getValue() / 1e3))
                .collect(java.util.stream.Collectors.joining(", "));
    }

    private static String threadGroup(String name) {
        if (name.contains("fake-executor")) {
            return "fake executor";
        }
        if (name.equals("main") || name.contains("test-")) { // test-producer-..., test-<group> (AllotInfrastructure)
            return "benchmark clients";
        }
        return name.startsWith("kafka-producer") || name.contains("HttpClient") || name.startsWith("awaitility")
                ? "other clients" : "broker and the rest";
    }

    static double pct(List<Double> values, double p) {
        List<Double> sorted = new ArrayList<>(values);
        sorted.sort(Double::compare);
        return sorted.isEmpty() ? Double.NaN : sorted.get(Math.min(sorted.size() - 1, (int) Math.ceil(p * sorted.size()) - 1));
    }

    private static Map<String, String> with(Map<String, String> settings, String key, String value) {
        Map<String, String> more = new java.util.HashMap<>(settings);
        more.put(key, value);
        return more;
    }
}
