package dev.allot.accounting.streams;

import dev.allot.edge.KafkaClients;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;

/**
 * The topology without Quarkus, for the crash/restart test (run in a child JVM and killed) and the
 * benchmark. System properties: allot.bootstrap, allot.registry, allot.app-id, allot.state-dir,
 * allot.topics (comma list: usage,budgets,node-status,account-demand,budget-usage,dead-letters),
 * allot.emit-interval-ms, allot.threads, allot.instance-id (static membership; unset: dynamic).
 */
public final class AccountingStreamsMain {

    private AccountingStreamsMain() {
    }

    /** The edge's Streams settings (exactly once v2, from the earliest offset) plus this topology's. */
    public static Properties streamsConfig(KafkaClients kafka, String appId, String stateDir, int threads) {
        return kafka.streamsConfig(appId, Map.of(
                StreamsConfig.STATE_DIR_CONFIG, stateDir,
                StreamsConfig.NUM_STREAM_THREADS_CONFIG, threads,
                StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, 32 * 1024 * 1024L,
                StreamsConfig.REPLICATION_FACTOR_CONFIG, 1,
                // A killed instance's partitions move after this long (the broker's minimum is 6 s).
                StreamsConfig.consumerPrefix("session.timeout.ms"),
                Integer.getInteger("allot.session-timeout-ms", 45_000)));
    }

    public static AccountingTopics topics(String list) {
        String[] t = list.split(",");
        return new AccountingTopics(t[0], t[1], t[2], t[3], t[4], t[5]);
    }

    public static void main(String[] args) throws InterruptedException {
        String bootstrap = System.getProperty("allot.bootstrap", "127.0.0.1:9092");
        String registry = System.getProperty("allot.registry", "http://127.0.0.1:8080");
        AccountingTopics topics = System.getProperty("allot.topics") == null ? AccountingTopics.catalogue()
                : topics(System.getProperty("allot.topics"));
        AccountingSettings settings = AccountingSettings.defaults()
                .withEmitInterval(Duration.ofMillis(Long.getLong("allot.emit-interval-ms", 1000)));
        KafkaClients clients = new KafkaClients(bootstrap, registry, dev.allot.edge.security.KafkaSecurity.fromEnvironment());
        BudgetDeadLetters.Kafka budgetDeadLetters = BudgetDeadLetters.kafka(clients);
        String appId = System.getProperty("allot.app-id", "allot-accounting");
        int threads = Integer.getInteger("allot.threads", 1);
        java.util.Properties config = streamsConfig(clients, appId,
                System.getProperty("allot.state-dir", System.getProperty("java.io.tmpdir") + "/allot-accounting-main"),
                threads);
        String instanceId = System.getProperty("allot.instance-id");
        if (instanceId != null) {
            config.put(org.apache.kafka.clients.consumer.ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, instanceId);
        }
        StaticMembers membership = new StaticMembers(clients::admin, appId, instanceId, threads);
        membership.evictLeftovers();
        KafkaStreams streams = new KafkaStreams(
                AccountingTopology.build(settings, topics, AccountingSerdes.registry(registry), AccountingListener.NONE,
                        budgetDeadLetters), config);
        CountDownLatch done = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            streams.close(Duration.ofSeconds(10));
            budgetDeadLetters.close();
            done.countDown();
        }));
        streams.setStateListener((now, before) -> System.out.println("STATE " + now));
        streams.setUncaughtExceptionHandler(new RegistryRetry(membership));
        streams.start();
        done.await();
    }
}
