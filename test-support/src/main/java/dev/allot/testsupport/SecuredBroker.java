package dev.allot.testsupport;

import dev.allot.edge.security.KafkaAccess;
import dev.allot.edge.security.KafkaSecurity;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.utils.Time;

/**
 * The broker of {@code bin/allot infra up} ({@link LocalBroker}: SASL/SCRAM, the StandardAuthorizer, the
 * ACL table) in this JVM, on free loopback ports, for tests that prove the security. Formatted and set up
 * exactly as the local stack's broker is.
 */
final class SecuredBroker implements AutoCloseable {

    private final LocalBroker broker;
    private final KafkaRaftServer server;

    private SecuredBroker(LocalBroker broker, KafkaRaftServer server) {
        this.broker = broker;
        this.server = server;
    }

    static SecuredBroker start(Path workDir) {
        try {
            Path dir = Files.createTempDirectory(workDir, "kafka-secured-");
            LocalBroker broker = new LocalBroker(dir, LoopbackPorts.free(), LoopbackPorts.free(), true);
            broker.prepare();
            Properties props = KafkaSecurity.load(broker.serverProperties());
            KafkaRaftServer server = new KafkaRaftServer(new KafkaConfig(props, false), Time.SYSTEM);
            server.startup();
            SecuredBroker started = new SecuredBroker(broker, server);
            try {
                started.awaitReady();
                broker.setUp();
            } catch (RuntimeException e) {
                started.close();
                throw e;
            }
            return started;
        } catch (IOException e) {
            throw new IllegalStateException("could not start the secured Kafka broker", e);
        }
    }

    private void awaitReady() {
        Map<String, Object> config = new LinkedHashMap<>(security(KafkaAccess.ADMIN).clientConfig());
        config.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        try (Admin admin = Admin.create(config)) {
            org.awaitility.Awaitility.await().atMost(Duration.ofMinutes(2)).ignoreExceptions()
                    .until(() -> !admin.describeCluster().nodes().get().isEmpty());
        }
    }

    String bootstrapServers() {
        return broker.bootstrapServers();
    }

    KafkaSecurity security(String user) {
        return broker.security(user);
    }

    @Override
    public void close() {
        server.shutdown();
        server.awaitShutdown();
    }
}
