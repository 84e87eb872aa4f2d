package dev.allot.accounting.streams;

import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;

/**
 * The topology without Quarkus, for the crash/restart test (run in a child JVM and killed) and the
 * benchmark. System properties: allot.bootstrap, allot.registry, allot.app-id, allot.state-dir,
 * allot.topics (comma list: usage,budgets,node-status,account-demand,budget-usage,dead-letters),
 * allot.emit-interval-ms, allot.threads.
 */
public final class AccountingStreamsMain {

    private AccountingStreamsMain() {
    }

    public static Properties streamsConfig(String bootstrap, String appId, String stateDir, int threads) {
        Properties p = new Properties();
        p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(StreamsConfig.APPLICATION_ID_CONFIG, appId);
        p.put(StreamsConfig.STATE_DIR_CONFIG, stateDir);
        p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        p.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, threads);
        p.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, 32 * 1024 * 1024L);
        p.put(StreamsConfig.consumerPrefix("auto.offset.reset"), "earliest");
        p.put(StreamsConfig.REPLICATION_FACTOR_CONFIG, 1);
        // A killed instance's partitions move after this long (the broker's minimum is 6 s).
        p.put(StreamsConfig.consumerPrefix("session.timeout.ms"), Integer.getInteger("allot.session-timeout-ms", 45_000));
        return p;
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
        KafkaStreams streams = new KafkaStreams(
                AccountingTopology.build(settings, topics, AccountingSerdes.registry(registry), AccountingListener.NONE),
                streamsConfig(bootstrap, System.getProperty("allot.app-id", "allot-accounting"),
                        System.getProperty("allot.state-dir", System.getProperty("java.io.tmpdir") + "/allot-accounting-main"),
                        Integer.getInteger("allot.threads", 1)));
        CountDownLatch done = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            streams.close(Duration.ofSeconds(10));
            done.countDown();
        }));
        streams.setStateListener((now, before) -> System.out.println("STATE " + now));
        streams.start();
        done.await();
    }
}
