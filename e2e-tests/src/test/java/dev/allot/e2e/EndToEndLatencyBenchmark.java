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
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;

/**
 * Not part of the normal test run (run with {@code bin/allot e2e-bench}): the whole system as real
 * processes on an idle cluster; a JobSubmitted event is produced and the clock stops when the node
 * agent reports JobStarted, i.e. the OS process is running with its GPUs. One job at a time.
 * Also split at the scheduler's JobPlaced (its decision's time; the agent reads it once the step's transaction
 * commits): submitted -> placed and placed -> started, and the slowest jobs' split, to say where a tail comes from.
 * Figures go to docs/benchmarks.md.
 */
@AllotInfra
class EndToEndLatencyBenchmark {

    @Test
    void submitToProcessRunningOnAnIdleCluster(AllotInfrastructure infra) throws Exception {
        int jobs = Integer.getInteger("bench.jobs", 200);
        int warmup = Integer.getInteger("bench.warmup", 20);
        String cluster = "bench-" + UUID.randomUUID().toString().substring(0, 6);
        Path marker = Files.createTempDirectory("allot-bench");
        try (AllotSystem system = AllotSystem.start(infra, cluster, 4, 8)) {
            String lab = "lab" + cluster.substring(5);
            system.api.putBudget(lab, 1);
            system.api.putBudget(lab + "/team", 1);
            List<double[]> splits = new ArrayList<>(); // total, submitted -> placed, placed -> started (ms)
            try (KafkaProducer<String, JobRequest> producer = infra.producer();
                 KafkaConsumer<String, JobEvent> events = infra.consumer(JobEvent.class)) {
                events.subscribe(Set.of(Topics.JOB_EVENTS.name()));
                events.poll(Duration.ofMillis(500)); // join before the first submission
                for (int i = 0; i < warmup + jobs; i++) {
                    String id = cluster + "-" + i;
                    Instant sent = Instant.now();
                    producer.send(new ProducerRecord<>(Topics.JOB_REQUESTS.name(), id, JobRequest.newBuilder()
                            .setEventId(UUID.randomUUID().toString()).setOccurredAt(sent)
                            .setPayload(JobSubmitted.newBuilder().setJobId(id).setBudget(lab + "/team")
                                    .setSubmitter("bench").setCluster(cluster).setReplicas(1).setGpusPerReplica(1)
                                    .setMinRuntimeSeconds(60).setResumable(true)
                                    .setCommand(List.of("true")).setEnv(Map.of("M", marker.toString()))
                                    .setExpectedDurationSeconds(null).setSubmittedAt(sent).build())
                            .build()));
                    long began = System.nanoTime();
                    Double elapsed = null;
                    Instant placed = null;
                    Instant started = null;
                    while (elapsed == null && System.nanoTime() - began < Duration.ofSeconds(30).toNanos()) {
                        for (ConsumerRecord<String, JobEvent> r : events.poll(Duration.ofMillis(5))) {
                            if (r.key().equals(id) && r.value().getPayload() instanceof JobPlaced) {
                                placed = r.value().getOccurredAt();
                            }
                            if (r.key().equals(id) && r.value().getPayload() instanceof JobStarted) {
                                elapsed = (System.nanoTime() - began) / 1e6;
                                started = r.value().getOccurredAt();
                            }
                        }
                    }
                    assertThat(elapsed).as("JobStarted of %s", id).isNotNull();
                    if (i >= warmup) {
                        splits.add(new double[] {elapsed, placed == null ? Double.NaN : millisBetween(sent, placed),
                                placed == null ? Double.NaN : millisBetween(placed, started)});
                    }
                }
            }
            List<Double> millis = splits.stream().map(x -> x[0]).sorted().toList();
            System.out.printf("BENCH e2e submit->process running, idle cluster, %d jobs: p50 %.1f ms, p90 %.1f ms,"
                            + " p99 %.1f ms, max %.1f ms%n", millis.size(), pct(millis, 0.50), pct(millis, 0.90),
                    pct(millis, 0.99), millis.get(millis.size() - 1));
            List<Double> toPlaced = splits.stream().map(x -> x[1]).filter(x -> !x.isNaN()).sorted().toList();
            List<Double> toStarted = splits.stream().map(x -> x[2]).filter(x -> !x.isNaN()).sorted().toList();
            System.out.printf("BENCH e2e split: submitted->placed p50 %.1f p99 %.1f ms, placed->started p50 %.1f p99 %.1f ms;"
                            + " slowest (total / to placed / to started):%s%n", pct(toPlaced, 0.5), pct(toPlaced, 0.99),
                    pct(toStarted, 0.5), pct(toStarted, 0.99), splits.stream()
                            .sorted((x, y) -> Double.compare(y[0], x[0])).limit(4)
                            .map(x -> String.format(" %.0f/%.0f/%.0f", x[0], x[1], x[2])).reduce("", String::concat));
        }
    }

    private static double millisBetween(Instant from, Instant to) {
        return Duration.between(from, to).toNanos() / 1e6;
    }

    private static double pct(List<Double> sorted, double p) {
        return sorted.get(Math.min(sorted.size() - 1, (int) Math.ceil(p * sorted.size()) - 1));
    }
}
