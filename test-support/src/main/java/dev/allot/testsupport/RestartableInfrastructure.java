package dev.allot.testsupport;

import dev.allot.edge.KafkaClients;
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
 * A broker and a schema registry of a test's own, each of which the test may stop and start again (an outage):
 * the broker in this JVM ({@link LocalBroker}'s plaintext recipe, its log on disk, the same ports after a restart),
 * the registry as a child process with its schemas in an H2 file (the same port and schema ids after a restart).
 * Not shared: stopping it disturbs no other test. {@link #dedicated()} is the JVM-wide one that
 * {@link RestartableInfraTestResource} points a Quarkus service at. {@link #startWithBrokerProcesses()} runs the
 * broker and its controller as processes of their own instead, as {@code bin/allot} does, so that
 * {@link #killBroker()} can SIGKILL the broker.
 */
public final class RestartableInfrastructure implements AutoCloseable {

    private static volatile RestartableInfrastructure dedicated;

    private final Path dir;
    private final LocalBroker broker;
    private final int registryPort;
    private final KafkaClients clients;
    private KafkaRaftServer server;
    private BrokerProcesses processes; // instead of server, when the broker runs as processes
    private SchemaRegistryProcess registry;

    private RestartableInfrastructure(Path dir, LocalBroker broker, int registryPort) {
        this.dir = dir;
        this.broker = broker;
        this.registryPort = registryPort;
        this.clients = new KafkaClients(broker.bootstrapServers(), "http://127.0.0.1:" + registryPort,
                KafkaSecurity.PLAINTEXT);
    }

    /** The JVM-wide instance for tests that cut the broker or the registry off, started on first use. */
    public static RestartableInfrastructure dedicated() {
        RestartableInfrastructure current = dedicated;
        if (current == null) {
            synchronized (RestartableInfrastructure.class) {
                current = dedicated;
                if (current == null) {
                    current = start();
                    dedicated = current;
                    RestartableInfrastructure stopping = current;
                    Runtime.getRuntime().addShutdownHook(new Thread(stopping::close, "allot-restartable-infra-stop"));
                }
            }
        }
        return current;
    }

    /** A new instance on free loopback ports, every catalogue topic created. */
    public static RestartableInfrastructure start() {
        return start(false);
    }

    /**
     * A new instance whose broker and KRaft controller run as processes of their own ({@link BrokerProcesses}, the
     * layout of {@code bin/allot}), so that {@link #killBroker()} can SIGKILL the broker.
     */
    public static RestartableInfrastructure startWithBrokerProcesses() {
        return start(true);
    }

    private static RestartableInfrastructure start(boolean asProcesses) {
        try {
            Path work = Path.of(System.getProperty("allot.test.workdir",
                    System.getProperty("java.io.tmpdir") + "/allot-test-infra"));
            Files.createDirectories(work);
            Path dir = Files.createTempDirectory(work, "restartable-");
            LocalBroker broker = new LocalBroker(dir.resolve("kafka"), LoopbackPorts.free(),
                    LoopbackPorts.free(), false);
            if (asProcesses) {
                broker = broker.withControllerApart();
            }
            broker.prepare();
            RestartableInfrastructure infra = new RestartableInfrastructure(dir, broker, LoopbackPorts.free());
            if (asProcesses) {
                infra.processes = new BrokerProcesses(broker, dir.resolve("kafka"));
            }
            try {
                infra.startRegistry();
                infra.startBroker();
                broker.setUp();
            } catch (RuntimeException e) {
                infra.close();
                throw e;
            }
            return infra;
        } catch (IOException e) {
            throw new IllegalStateException("could not start a restartable broker and registry", e);
        }
    }

    public String bootstrapServers() {
        return broker.bootstrapServers();
    }

    public String registryUrl() {
        return "http://127.0.0.1:" + registryPort;
    }

    /** The edge's client builder for this broker and registry. */
    public KafkaClients clients() {
        return clients;
    }

    /** Starts the broker (again) on its ports and log, and waits until it answers. */
    public synchronized void startBroker() {
        if (processes != null) {
            processes.start();
            return;
        }
        if (server != null) {
            return;
        }
        Properties props = KafkaSecurity.load(broker.serverProperties());
        KafkaRaftServer started = new KafkaRaftServer(new KafkaConfig(props, false), Time.SYSTEM);
        started.startup();
        server = started;
        Map<String, Object> config = new LinkedHashMap<>();
        config.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        try (Admin admin = Admin.create(config)) {
            org.awaitility.Awaitility.await().atMost(Duration.ofMinutes(2)).ignoreExceptions()
                    .until(() -> !admin.describeCluster().nodes().get().isEmpty());
        }
    }

    /** Stops the broker (a clean shutdown: its log stays for {@link #startBroker}); clients get no answer. */
    public synchronized void stopBroker() {
        if (processes != null) {
            processes.stopBroker();
            return;
        }
        if (server == null) {
            return;
        }
        server.shutdown();
        server.awaitShutdown();
        server = null;
    }

    /**
     * SIGKILLs the broker's process (its controller runs on); {@link #startBroker} starts it again on its log. Only
     * for {@link #startWithBrokerProcesses()}: a broker in this JVM cannot be killed so.
     */
    public synchronized void killBroker() {
        if (processes == null) {
            throw new IllegalStateException("the broker runs in this JVM: startWithBrokerProcesses() to kill it");
        }
        processes.killBroker();
    }

    /** The broker's and its controller's output when they run as processes (appended across restarts). */
    public Path brokerLogDir() {
        return dir.resolve("kafka");
    }

    public synchronized boolean brokerRunning() {
        return processes != null ? processes.brokerRunning() : server != null;
    }

    /** Starts the registry (again) on its port, with the schemas it had, and waits until it answers. */
    public synchronized void startRegistry() {
        if (registry == null) {
            registry = SchemaRegistryProcess.startPersistent(registryPort, dir, dir.resolve("registry"));
        }
    }

    /** Stops the registry process: lookups of schema ids not cached yet, and new schemas, get no answer. */
    public synchronized void stopRegistry() {
        if (registry != null) {
            registry.close();
            registry = null;
        }
    }

    @Override
    public synchronized void close() {
        stopRegistry();
        try {
            if (processes != null) {
                processes.close();
            }
            stopBroker();
        } catch (RuntimeException ignored) {
            // the JVM is going away
        }
    }
}
