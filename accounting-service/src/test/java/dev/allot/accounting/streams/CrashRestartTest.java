package dev.allot.accounting.streams;

import static dev.allot.accounting.Events.budget;
import static dev.allot.accounting.Events.usage;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.allot.schemas.BudgetUsage;
import dev.allot.schemas.catalogue.Topic;
import dev.allot.schemas.catalogue.Topics;
import dev.allot.testsupport.AllotInfra;
import dev.allot.testsupport.AllotInfrastructure;
import dev.allot.testsupport.Tail;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;

/**
 * Exactly once across a crash: the Streams app runs in a child JVM, is killed (SIGKILL, no commit, no
 * close) while usage is still flowing, restarts on the same state directory, and every account's sum
 * equals the sum of the events to the GPU-second (at-least-once would double-count the replayed part).
 */
@AllotInfra
class CrashRestartTest {

    static final long H = 3_600_000L;

    @Test
    void givenUsageFlowing_whenTheAppIsKilledAndRestarted_thenTheSumsAreExact(AllotInfrastructure infra) throws Exception {
        List<Topic<String, ?>> fresh = new ArrayList<>();
        for (Topic<String, ?> t : List.of(Topics.USAGE, Topics.BUDGETS, Topics.NODE_STATUS, Topics.ACCOUNT_DEMAND,
                Topics.BUDGET_USAGE, Topics.DEAD_LETTERS)) {
            fresh.add(infra.freshTopic(t));
        }
        String topicList = String.join(",", fresh.stream().map(Topic::name).toList());
        String usageTopic = fresh.get(0).name();
        String appId = "crash-" + UUID.randomUUID().toString().substring(0, 8);
        Path stateDir = Files.createTempDirectory("accounting-crash");
        String cluster = "crash";
        int accounts = 8;
        int events = 10_000;
        long hour = (System.currentTimeMillis() / H) * H - H;
        Map<String, Double> expected = new HashMap<>();

        try (KafkaProducer<String, SpecificRecord> producer = infra.producer()) {
            producer.send(new ProducerRecord<>(fresh.get(1).name(), "org", budget("org", null, 1, hour)));
            for (int a = 0; a < accounts; a++) {
                producer.send(new ProducerRecord<>(fresh.get(1).name(), "org/t" + a, budget("org/t" + a, "org", 1, hour)));
            }
            producer.flush();
        }
        AtomicInteger sent = new AtomicInteger();
        java.util.concurrent.CountDownLatch firstOutput = new java.util.concurrent.CountDownLatch(1);
        Thread feeder = new Thread(() -> {
            try (KafkaProducer<String, SpecificRecord> producer = infra.producer()) {
                for (int i = 0; i < events; i++) {
                    String account = "org/t" + (i % accounts);
                    long start = hour + (i % 3600) * 1000L;
                    double gs = 1 + (i % 7);
                    synchronized (expected) {
                        expected.merge(account, gs, Double::sum);
                    }
                    producer.send(new ProducerRecord<>(usageTopic, "job-" + i,
                            usage("job-" + i, cluster, account, start, start + 1000L, gs, true)));
                    if (i == 1999) {
                        producer.flush();
                        sent.set(i + 1);
                        firstOutput.await(); // the app is up and counting
                    } else if (i % 100 == 99) {
                        producer.flush();
                        sent.set(i + 1);
                        Thread.sleep(30); // keep usage flowing while the app is killed
                    }
                }
                producer.flush();
                sent.set(events);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "usage-feeder");

        @SuppressWarnings("unchecked")
        Topic<String, BudgetUsage> budgetUsage = (Topic<String, BudgetUsage>) fresh.get(4);
        try (Tail<BudgetUsage> out = new Tail<>(infra, budgetUsage)) {
            Process first = child(infra, appId, stateDir, topicList);
            feeder.start();
            // mid-stream: the first instance has published a partial sum and usage is still coming
            await().atMost(Duration.ofSeconds(90)).until(() -> {
                BudgetUsage org = latest(out).get(cluster + "/org");
                if (org != null && org.getChargedGpuSeconds() > 0) {
                    firstOutput.countDown();
                }
                return org != null && sent.get() > 4000;
            });
            first.destroyForcibly().waitFor();
            int sentAtKill = sent.get();

            Process second = child(infra, appId, stateDir, topicList);
            try {
                feeder.join(120_000);
                double total = expected.values().stream().mapToDouble(Double::doubleValue).sum();
                await().atMost(Duration.ofSeconds(120)).until(() -> {
                    BudgetUsage org = latest(out).get(cluster + "/org");
                    return org != null && org.getChargedGpuSeconds() == total;
                });
                assertThat(sentAtKill).isLessThan(events);
                // each account's last sum: the tail may read org's partition before an account's, so awaited, not
                // taken at the instant org's total is right; one counted twice or lost never gets there
                await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                    Map<String, BudgetUsage> latest = latest(out);
                    for (int a = 0; a < accounts; a++) {
                        assertThat(latest.get(cluster + "/org/t" + a)).as("account org/t" + a).isNotNull();
                        assertThat(latest.get(cluster + "/org/t" + a).getChargedGpuSeconds())
                                .as("account org/t" + a).isEqualTo(expected.get("org/t" + a));
                    }
                });
                // and it stays exact: nothing is counted twice later
                await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(5))
                        .until(() -> latest(out).get(cluster + "/org").getChargedGpuSeconds() == total);
            } finally {
                second.destroyForcibly().waitFor();
            }
        }
    }

    /** The latest value per key the tail has seen. */
    static Map<String, BudgetUsage> latest(Tail<BudgetUsage> tail) {
        Map<String, BudgetUsage> latest = new HashMap<>();
        tail.records().forEach(r -> latest.put(r.key(), r.value()));
        return latest;
    }

    static Process child(AllotInfrastructure infra, String appId, Path stateDir, String topics) throws Exception {
        String java = ProcessHandle.current().info().command().orElse("java");
        File log = stateDir.resolve("child-" + System.nanoTime() + ".log").toFile();
        return new ProcessBuilder(java, "-Xmx512m",
                "-Djava.util.logging.manager=org.jboss.logmanager.LogManager",
                "-Dallot.bootstrap=" + infra.bootstrapServers(), "-Dallot.registry=" + infra.registryUrl(),
                "-Dallot.app-id=" + appId, "-Dallot.state-dir=" + stateDir, "-Dallot.topics=" + topics,
                "-Dallot.emit-interval-ms=200", "-Dallot.session-timeout-ms=6000",
                "-cp", System.getProperty("java.class.path"), AccountingStreamsMain.class.getName())
                .redirectErrorStream(true).redirectOutput(log).start();
    }
}
