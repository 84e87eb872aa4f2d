package dev.allot.testsupport;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;

/**
 * A {@link LocalBroker} with its controller apart, as {@code bin/allot} runs it: the controller and the broker each a
 * JVM of its own (this JVM's {@code java} and class path), so a test can SIGKILL the broker as {@code bin/allot chaos}
 * does, its registration left behind with the controller. The same 3 s broker session as {@code bin/allot}. Their
 * output goes to {@code controller.log} and {@code kafka.log} in the broker's directory, appended across restarts.
 */
final class BrokerProcesses implements AutoCloseable {

    static final int SESSION_MS = 3000;

    private final LocalBroker broker;
    private final Path dir;
    private Process controller;
    private Process server;

    BrokerProcesses(LocalBroker broker, Path dir) {
        this.broker = broker;
        this.dir = dir;
    }

    /** Starts the controller, then the broker, and waits until the broker answers. */
    synchronized void start() {
        if (controller == null) {
            controller = launch(broker.controllerProperties(), dir.resolve("controller.log"));
        }
        startBroker();
    }

    /** Starts the broker (again) and waits until it answers. */
    synchronized void startBroker() {
        if (server != null && server.isAlive()) {
            return;
        }
        server = launch(broker.serverProperties(), dir.resolve("kafka.log"));
        Map<String, Object> config = new LinkedHashMap<>();
        config.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
        try (Admin admin = Admin.create(config)) {
            org.awaitility.Awaitility.await().atMost(Duration.ofMinutes(2)).ignoreExceptions()
                    .until(() -> {
                        if (!server.isAlive()) {
                            throw new IllegalStateException("the broker exited (" + server.exitValue() + "); see "
                                    + dir.resolve("kafka.log"));
                        }
                        return !admin.describeCluster().nodes().get().isEmpty();
                    });
        }
    }

    /**
     * SIGKILL: the broker dies with whatever it had not written, its registration outliving it. Returns once the
     * controller has fenced that registration (its session ended): a broker started again sooner finds itself still
     * registered as the partitions' leader, leads them under the dead registration, is fenced and leads them again
     * (the flap of a combined broker-controller, seen here with a restart 0.1 s after the kill: leader epochs 0, 1, 2
     * within a second). {@code bin/allot chaos} keeps the broker down 5 s, longer than its 3 s session.
     */
    synchronized void killBroker() {
        long fenced = fencings();
        end(server, true);
        server = null;
        org.awaitility.Awaitility.await("the controller fencing the killed broker").atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(100)).until(() -> fencings() > fenced);
    }

    /** How often the controller's log says it fenced a broker whose session timed out. */
    private long fencings() {
        Path log = dir.resolve("controller.log");
        try (var lines = Files.lines(log)) {
            return lines.filter(l -> l.contains("because its session has timed out")).count();
        } catch (IOException | java.io.UncheckedIOException e) {
            return 0;
        }
    }

    /** A clean stop (SIGTERM): the broker hands its partitions over and deregisters. */
    synchronized void stopBroker() {
        end(server, false);
        server = null;
    }

    synchronized boolean brokerRunning() {
        return server != null && server.isAlive();
    }

    @Override
    public synchronized void close() {
        end(server, false);
        end(controller, false);
        server = null;
        controller = null;
    }

    private Process launch(Path properties, Path log) {
        List<String> command = new ArrayList<>(List.of(
                ProcessHandle.current().info().command().orElse("java"), "-Xmx384m", "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"), "kafka.Kafka",
                properties.toString(),
                "--override", "broker.session.timeout.ms=" + SESSION_MS,
                "--override", "broker.heartbeat.interval.ms=" + SESSION_MS / 6));
        try {
            Files.createDirectories(log.getParent());
            return new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        } catch (IOException e) {
            throw new IllegalStateException("could not start " + properties, e);
        }
    }

    private static void end(Process process, boolean kill) {
        if (process == null || !process.isAlive()) {
            return;
        }
        if (kill) {
            process.destroyForcibly();
        } else {
            process.destroy();
        }
        try {
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
    }
}
