package dev.allot.accounting.streams;

import static dev.allot.accounting.Events.usage;

import dev.allot.accounting.book.AccountingView;
import dev.allot.accounting.book.Fact;
import dev.allot.accounting.replay.Replay;
import dev.allot.schemas.UsageReported;
import dev.allot.schemas.catalogue.EventSerdes;
import dev.allot.schemas.catalogue.Topic;
import dev.allot.schemas.catalogue.Topics;
import dev.allot.testsupport.AllotInfra;
import dev.allot.testsupport.AllotInfrastructure;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Grouped;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.TimeWindows;
import org.junit.jupiter.api.Test;

/**
 * Benchmarks on the real (in-JVM KRaft) broker and registry; not part of the normal test run:
 * {@code ./mvnw -o -pl accounting-service verify -Pbench -Dtest=ThroughputBenchmark} with
 * -Dbench.events, -Dbench.naive.events, -Dbench.replay.events, -Dbench.threads to change sizes.
 */
@AllotInfra
class ThroughputBenchmark {

    static final long H = 3_600_000L;
    static final int ACCOUNTS = 150;
    static final int CLUSTERS = 6;

    final int events = Integer.getInteger("bench.events", 1_000_000);
    final int naiveEvents = Integer.getInteger("bench.naive.events", 100_000);
    final int replayEvents = Integer.getInteger("bench.replay.events", 10_000_000);
    final int threads = Integer.getInteger("bench.threads", 2);

    @Test
    void usageThroughTheTopologyAndTheNaiveHoppingWindowsAndReplay(AllotInfrastructure infra) throws Exception {
        long base = (System.currentTimeMillis() / H) * H - 100 * H;
        Topic<String, UsageReported> usage = infra.freshTopic(Topics.USAGE);
        Map<String, Double> expected = produce(infra, usage.name(), events, base);
        List<String> topics = new ArrayList<>(List.of(usage.name()));
        for (Topic<String, ?> t : List.of(Topics.BUDGETS, Topics.NODE_STATUS, Topics.ACCOUNT_DEMAND,
                Topics.BUDGET_USAGE, Topics.DEAD_LETTERS)) {
            topics.add(infra.freshTopic(t).name());
        }
        AccountingTopics accountingTopics = AccountingStreamsMain.topics(String.join(",", topics));

        // 1. Our topology: hourly rows + running window sums.
        AtomicLong booked = new AtomicLong();
        AtomicLong firstAt = new AtomicLong();
        AtomicLong dead = new AtomicLong();
        AccountingListener counting = new AccountingListener() {
            @Override
            public void booked(Fact fact) {
                if (booked.incrementAndGet() == 1) {
                    firstAt.set(System.nanoTime());
                }
            }

            @Override
            public void deadLettered(String sourceTopic, String kind) {
                dead.incrementAndGet();
            }
        };
        Properties props = AccountingStreamsMain.streamsConfig(infra.clients(), "bench-" + UUID.randomUUID(),
                Files.createTempDirectory("bench-state").toString(), threads);
        KafkaStreams streams = new KafkaStreams(AccountingTopology.build(AccountingSettings.defaults(), accountingTopics,
                AccountingSerdes.registry(infra.registryUrl()), counting), props);
        long start = System.nanoTime();
        streams.start();
        long deadline = System.nanoTime() + 900_000_000_000L;
        while (booked.get() + dead.get() < events && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        if (booked.get() < events) {
            throw new AssertionError("only " + booked.get() + " of " + events + " booked, dead letters " + dead.get());
        }
        long end = System.nanoTime();
        double total = (end - start) / 1e9;
        double steady = (end - firstAt.get()) / 1e9;
        // correctness: every account's 7-day sum equals the sum of its events
        Thread.sleep(1500);
        long asOf = System.currentTimeMillis();
        int checked = 0;
        for (Map.Entry<String, Double> e : expected.entrySet()) {
            String[] ca = e.getKey().split("\\|");
            AccountingView view = StoreViews.view(streams, ca[0], AccountingSettings.defaults(),
                    new BudgetReader(accountingTopics.budgets(), AccountingSerdes.registry(infra.registryUrl())
                            .serde(Topics.BUDGETS).deserializer()));
            double got = view.usage(ca[0], ca[1], asOf).chargedGpuSeconds();
            if (got != e.getValue()) {
                throw new AssertionError(e.getKey() + ": " + got + " != " + e.getValue());
            }
            checked++;
        }
        streams.close(Duration.ofSeconds(30));
        System.out.printf("BENCH topology: %,d usage events, %d stream threads, exactly_once_v2: %.1f s from start "
                        + "(%,.0f events/s), %.1f s from first booked (%,.0f events/s); %d account sums exact%n",
                events, threads, total, events / total, steady, events / steady, checked);

        // 2. The naive design: every event into 168 overlapping hourly hopping windows of 7 days.
        Topic<String, UsageReported> naiveTopic = infra.freshTopic(Topics.USAGE);
        produce(infra, naiveTopic.name(), naiveEvents, base);
        AtomicLong updates = new AtomicLong();
        AtomicLong naiveFirst = new AtomicLong();
        Serde<UsageReported> usageSerde = AccountingSerdes.registry(infra.registryUrl()).serde(Topics.USAGE);
        StreamsBuilder naive = new StreamsBuilder();
        naive.stream(naiveTopic.name(), Consumed.with(Serdes.String(), usageSerde))
                .selectKey((k, v) -> Topics.accountKey(v.getCluster(), v.getAccount()))
                .groupByKey(Grouped.with(Serdes.String(), usageSerde))
                .windowedBy(TimeWindows.ofSizeAndGrace(Duration.ofDays(7), Duration.ofHours(1)).advanceBy(Duration.ofHours(1)))
                .aggregate(() -> new double[3], (k, v, agg) -> {
                    if (updates.incrementAndGet() == 1) {
                        naiveFirst.set(System.nanoTime());
                    }
                    agg[0] += v.getGpuSeconds();
                    return agg;
                }, Materialized.with(Serdes.String(), new RowSerde()));
        KafkaStreams naiveStreams = new KafkaStreams(naive.build(), AccountingStreamsMain.streamsConfig(
                infra.clients(), "naive-" + UUID.randomUUID(),
                Files.createTempDirectory("naive-state").toString(), threads));
        long naiveStart = System.nanoTime();
        naiveStreams.start();
        long naiveDeadline = System.nanoTime() + 900_000_000_000L;
        while (updates.get() < (long) naiveEvents * 168 && System.nanoTime() < naiveDeadline) {
            Thread.sleep(50);
        }
        long naiveEnd = System.nanoTime();
        naiveStreams.close(Duration.ofSeconds(30));
        double naiveTotal = (naiveEnd - naiveStart) / 1e9;
        double naiveSteady = (naiveEnd - naiveFirst.get()) / 1e9;
        System.out.printf("BENCH naive hopping windows (7 d size, 1 h advance = 168 window updates per event): "
                        + "%,d events: %.1f s from start (%,.0f events/s), %.1f s from first update (%,.0f events/s)%n",
                naiveEvents, naiveTotal, naiveEvents / naiveTotal, naiveSteady, naiveEvents / naiveSteady);

        // 3. Replay throughput: the whole log into a fresh in-memory projection.
        Topic<String, UsageReported> replayTopic = infra.freshTopic(Topics.USAGE);
        long produceStart = System.nanoTime();
        produce(infra, replayTopic.name(), replayEvents, base);
        double produced = (System.nanoTime() - produceStart) / 1e9;
        List<String> replayTopics = new ArrayList<>(topics);
        replayTopics.set(0, replayTopic.name());
        Replay.Result r = new Replay(infra.bootstrapServers(), infra.registryUrl(),
                AccountingStreamsMain.topics(String.join(",", replayTopics)), 7 * 24 * H, System.out).run(null);
        System.out.printf("BENCH replay: %,d usage events produced in %.1f s; replayed %,d records (%,d booked) in %.1f s "
                        + "(%,.0f records/s)%n", replayEvents, produced, r.records(), r.booked(),
                r.took().toMillis() / 1000.0, r.records() / (r.took().toMillis() / 1000.0));
    }

    /** Usage events spread over accounts and clusters, 1-minute intervals; returns the expected sum per cluster|account. */
    static Map<String, Double> produce(AllotInfrastructure infra, String topic, int n, long base) {
        Map<String, Double> expected = new HashMap<>();
        Serializer<UsageReported> serializer = EventSerdes.valueSerializer(infra.registryUrl());
        Map<String, Object> config = Map.of("bootstrap.servers", infra.bootstrapServers(), "linger.ms", 20,
                "batch.size", 512 * 1024, "acks", "1", "compression.type", "lz4", "buffer.memory", 256L * 1024 * 1024);
        try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(config, new StringSerializer(),
                new ByteArraySerializer())) {
            for (int i = 0; i < n; i++) {
                String cluster = "c" + (i % CLUSTERS);
                String account = "org/team-" + (i % ACCOUNTS);
                long s = base + (long) ((double) i / n * 6000) * 60_000L; // time moves forward with i
                double gs = 60.0 * (1 + i % 8);
                expected.merge(cluster + "|" + account, gs, Double::sum);
                String job = "job-" + (i % 10_000);
                producer.send(new ProducerRecord<>(topic, job,
                        serializer.serialize(topic, usage(job, cluster, account, s, s + 60_000L, gs, true))));
            }
            producer.flush();
        }
        return expected;
    }
}
