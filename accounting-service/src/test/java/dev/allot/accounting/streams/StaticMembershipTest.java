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
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.errors.FencedInstanceIdException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Static membership on a real broker: a stream thread whose static id goes to another member is fenced (as after a
 * join retried across a broker restart), and the stale member it leaves must not hold the tasks for its session;
 * nor may the member of that replacement thread hold them at the instance's next start. Both stale members here
 * have sessions of minutes, so without the removals the usage below is not counted within the waits.
 */
@AllotInfra
class StaticMembershipTest {

    static final long H = 3_600_000L;
    static final String CLUSTER = "static";

    final List<KafkaStreams> running = new ArrayList<>();
    final AtomicLong fencedAt = new AtomicLong();

    @AfterEach
    void close() {
        running.forEach(s -> s.close(Duration.ofSeconds(10)));
    }

    @Test
    void givenAFencedStreamThread_whenReplaced_thenItsStaleMemberIsRemovedAndTheNextStartIsNotHeldEither(
            AllotInfrastructure infra) throws Exception {
        List<Topic<String, ?>> fresh = new ArrayList<>();
        for (Topic<String, ?> t : List.of(Topics.USAGE, Topics.BUDGETS, Topics.NODE_STATUS, Topics.ACCOUNT_DEMAND,
                Topics.BUDGET_USAGE, Topics.DEAD_LETTERS)) {
            fresh.add(infra.freshTopic(t));
        }
        AccountingTopics topics = AccountingStreamsMain.topics(String.join(",", fresh.stream().map(Topic::name).toList()));
        String appId = "static-" + UUID.randomUUID().toString().substring(0, 8);
        String instanceId = "accounting-0";
        Path stateDir = Files.createTempDirectory("accounting-static");
        StaticMembers membership = new StaticMembers(infra.clients()::admin, appId, instanceId, 1);
        long hour = (System.currentTimeMillis() / H) * H - H;
        try (KafkaProducer<String, SpecificRecord> producer = infra.producer()) {
            producer.send(new ProducerRecord<>(topics.budgets(), "org", budget("org", null, 1, hour)));
            producer.send(new ProducerRecord<>(topics.budgets(), "org/a", budget("org/a", "org", 1, hour)));
        }
        @SuppressWarnings("unchecked")
        Topic<String, BudgetUsage> budgetUsage = (Topic<String, BudgetUsage>) fresh.get(4);
        AtomicInteger fenced = new AtomicInteger();
        fencedAt.set(0);

        try (Tail<BudgetUsage> out = new Tail<>(infra, budgetUsage)) {
            // given an instance counting usage under its static id
            start(infra, topics, appId, instanceId, stateDir, membership, fenced);
            use(infra, topics, "job-1", hour, 100);
            await().atMost(Duration.ofSeconds(90)).until(() -> charged(out) == 100);

            // when another member takes the thread's static id and then goes silent (a session of 10 minutes)
            impostor(infra, topics, appId, instanceId + "-1");
            await().atMost(Duration.ofSeconds(60)).until(() -> fenced.get() > 0);

            // then the replacement thread counts new usage: the stale member was removed, not waited out
            use(infra, topics, "job-2", hour + 60_000, 200);
            await().atMost(Duration.ofSeconds(60)).until(() -> charged(out) == 300);
            System.out.printf("static membership: usage counted again %.1f s after the fence%n",
                    (System.nanoTime() - fencedAt.get()) / 1e9);
            assertThat(staticIds(infra, appId)).containsExactly(instanceId + "-2");

            // and when the instance starts again (its threads join under -1, the replacement's -2 stays behind)
            running.remove(0).close(Duration.ofSeconds(10));
            assertThat(membership.evictLeftovers()).containsExactly(instanceId + "-2");
            start(infra, topics, appId, instanceId, stateDir, membership, fenced);
            use(infra, topics, "job-3", hour + 120_000, 400);
            await().atMost(Duration.ofSeconds(60)).until(() -> charged(out) == 700);
            assertThat(staticIds(infra, appId)).containsExactly(instanceId + "-1");
        }
    }

    @Test
    void staticIdsAreTheInstanceIdSuffixedWithTheThreadIndex_andOnlyIndicesBeyondTheThreadCountAreLeftovers() {
        StaticMembers members = new StaticMembers(() -> null, "allot-accounting", "local-0", 2);

        assertThat(members.staticIdOf("allot-accounting-6f1c-StreamThread-3")).isEqualTo("local-0-3");
        assertThat(members.staticIdOf("main")).isNull();
        assertThat(members.leftover("local-0-3")).isTrue();
        assertThat(members.leftover("local-0-2")).isFalse();
        assertThat(members.leftover("local-0-1-1")).isFalse(); // instance "local-0-1", thread 1
        assertThat(members.leftover("local-1-3")).isFalse();
        assertThat(StaticMembers.NONE.staticIdOf("x-StreamThread-1")).isNull();
        assertThat(StaticMembers.NONE.evictLeftovers()).isEmpty();
    }

    void start(AllotInfrastructure infra, AccountingTopics topics, String appId, String instanceId, Path stateDir,
            StaticMembers membership, AtomicInteger fenced) {
        Properties config = AccountingStreamsMain.streamsConfig(infra.clients(), appId, stateDir.toString(), 1);
        config.put(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, instanceId);
        config.put(StreamsConfig.consumerPrefix(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG), 300_000);
        KafkaStreams streams = new KafkaStreams(AccountingTopology.build(AccountingSettings.defaults()
                .withEmitInterval(Duration.ofMillis(200)), topics, AccountingSerdes.registry(infra.registryUrl()),
                AccountingListener.NONE, BudgetDeadLetters.kafka(infra.clients())), config);
        RegistryRetry retry = new RegistryRetry(membership);
        streams.setUncaughtExceptionHandler(e -> {
            if (hasCause(e, FencedInstanceIdException.class)) {
                fencedAt.compareAndSet(0, System.nanoTime());
                fenced.incrementAndGet();
            }
            return retry.handle(e);
        });
        streams.start();
        running.add(streams);
    }

    /** A plain consumer that joins under the given static id, is assigned, and closes (a static member stays). */
    static void impostor(AllotInfrastructure infra, AccountingTopics topics, String groupId, String staticId) {
        Map<String, Object> config = new HashMap<>(infra.clients().consumerConfig("impostor"));
        config.put(ConsumerConfig.GROUP_ID_CONFIG, groupId);
        config.put(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, staticId);
        config.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, 600_000);
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        config.put(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, List.of(StreamNamedAssignor.class.getName()));
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(config, new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            consumer.subscribe(List.of(topics.usage()));
            await().atMost(Duration.ofSeconds(60)).until(() -> {
                consumer.poll(Duration.ofMillis(200));
                ConsumerGroupMetadata group = consumer.groupMetadata();
                return group.generationId() > 0 && !group.memberId().isEmpty();
            });
        }
    }

    /** Speaks the Streams group's protocol name so the broker lets it take the static id; assigns nothing. */
    public static final class StreamNamedAssignor implements ConsumerPartitionAssignor {
        @Override
        public GroupAssignment assign(Cluster metadata, GroupSubscription subscription) {
            Map<String, Assignment> none = new HashMap<>();
            subscription.groupSubscription().keySet().forEach(m -> none.put(m, new Assignment(List.of())));
            return new GroupAssignment(none);
        }

        @Override
        public String name() {
            return "stream";
        }
    }

    static void use(AllotInfrastructure infra, AccountingTopics topics, String job, long start, double gpuSeconds) {
        try (KafkaProducer<String, SpecificRecord> producer = infra.producer()) {
            producer.send(new ProducerRecord<>(topics.usage(), job,
                    usage(job, CLUSTER, "org/a", start, start + 1000L, gpuSeconds, true)));
        }
    }

    static double charged(Tail<BudgetUsage> out) {
        Map<String, BudgetUsage> latest = CrashRestartTest.latest(out);
        BudgetUsage a = latest.get(CLUSTER + "/org/a");
        return a == null ? -1 : a.getChargedGpuSeconds();
    }

    static List<String> staticIds(AllotInfrastructure infra, String groupId) throws Exception {
        try (var admin = infra.admin()) {
            return admin.describeConsumerGroups(List.of(groupId)).describedGroups().get(groupId).get().members()
                    .stream().flatMap(m -> m.groupInstanceId().stream()).sorted().toList();
        }
    }

    static boolean hasCause(Throwable e, Class<? extends Throwable> type) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (type.isInstance(t)) {
                return true;
            }
        }
        return false;
    }
}
