package dev.allot.testsupport;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Apicurio Registry 3.3.3 (in-memory storage) as a child process on a loopback port.
 *
 * <p>The process is wrapped in a small shell watchdog that kills the registry when the parent JVM
 * disappears, so a test JVM that dies hard leaves nothing behind.
 */
public final class SchemaRegistryProcess implements AutoCloseable {

    private final Process process;
    private final int port;
    private final Path log;

    private SchemaRegistryProcess(Process process, int port, Path log) {
        this.process = process;
        this.port = port;
        this.log = log;
    }

    /**
     * Starts the registry on a free port and waits until its API answers. The port is free when chosen, not
     * reserved: another process may bind it in the seconds before the registry does; then another is chosen.
     */
    public static SchemaRegistryProcess start(Path workDir) {
        for (int attempt = 1; ; attempt++) {
            try {
                return start(RegistryDistribution.locate(), LoopbackPorts.free(), workDir);
            } catch (PortTaken e) {
                if (attempt == 3) {
                    throw e;
                }
            }
        }
    }

    /** The registry exited because its port was bound by another process meanwhile. */
    static final class PortTaken extends IllegalStateException {
        PortTaken(String message) {
            super(message);
        }
    }

    public static SchemaRegistryProcess start(Path registryHome, int port, Path workDir) {
        return start(registryHome, port, workDir, List.of());
    }

    /**
     * The registry with its schemas in an H2 file under {@code dataDir} (as {@code bin/allot infra up} runs it): a
     * registry stopped and started again on the same port and dir still resolves every schema id it gave.
     */
    public static SchemaRegistryProcess startPersistent(int port, Path workDir, Path dataDir) {
        return start(RegistryDistribution.locate(), port, workDir, List.of(
                "-Dapicurio.storage.kind=sql", "-Dapicurio.storage.sql.kind=h2",
                "-Dapicurio.datasource.url=jdbc:h2:file:" + dataDir.resolve("registry") + ";DB_CLOSE_ON_EXIT=FALSE",
                "-Dapicurio.datasource.username=sa", "-Dapicurio.datasource.password=sa"));
    }

    private static SchemaRegistryProcess start(Path registryHome, int port, Path workDir, List<String> options) {
        try {
            Files.createDirectories(workDir);
            Path log = workDir.resolve("schema-registry-" + port + ".log");
            String java = ProcessHandle.current().info().command().orElse("java");
            List<String> registry = new ArrayList<>(List.of(java,
                    "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xshare:auto",
                    "-Dquarkus.http.host=127.0.0.1",
                    "-Dquarkus.http.port=" + port,
                    // Apicurio opens a management interface even when told not to: keep it on loopback, any port.
                    "-Dquarkus.management.enabled=false", "-Dquarkus.management.host=127.0.0.1",
                    "-Dquarkus.management.port=0",
                    "-Dquarkus.log.level=WARN",
                    "-Dquarkus.log.category.\"io.apicurio\".level=WARN",
                    "-Dapicurio.logconfigjob.enabled=false"));
            registry.addAll(options);
            registry.addAll(List.of("-jar", registryHome.resolve("quarkus-run.jar").toString()));
            long parent = ProcessHandle.current().pid();
            String script = "\"$@\" & child=$!; "
                    + "trap 'kill $child 2>/dev/null' TERM INT EXIT; "
                    + "while kill -0 " + parent + " 2>/dev/null && kill -0 $child 2>/dev/null; do sleep 1; done; "
                    + "kill $child 2>/dev/null; wait $child";
            List<String> command = new ArrayList<>(List.of("bash", "-c", script, "registry-watchdog"));
            command.addAll(registry);
            Process process = new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(log.toFile())
                    .start();
            SchemaRegistryProcess started = new SchemaRegistryProcess(process, port, log);
            started.awaitReady(Duration.ofSeconds(180));
            return started;
        } catch (IOException e) {
            throw new IllegalStateException("could not start the schema registry from " + registryHome, e);
        }
    }

    public String url() {
        return "http://127.0.0.1:" + port;
    }

    public int port() {
        return port;
    }

    private void awaitReady(Duration timeout) {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
        HttpRequest probe = HttpRequest.newBuilder(URI.create(url() + "/apis/registry/v3/system/info"))
                .timeout(Duration.ofSeconds(2)).build();
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                String message = "schema registry exited with " + process.exitValue() + "; see " + log;
                throw portTakenIn(log) ? new PortTaken(message + " (port " + port + " taken meanwhile)")
                        : new IllegalStateException(message);
            }
            try {
                if (http.send(probe, HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
                    return;
                }
            } catch (IOException ignored) {
                // not listening yet
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
            try {
                process.waitFor(100, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
        close();
        throw new IllegalStateException("schema registry not ready after " + timeout + "; see " + log);
    }

    @Override
    public void close() {
        process.descendants().forEach(ProcessHandle::destroy);
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.descendants().forEach(ProcessHandle::destroyForcibly);
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static boolean portTakenIn(Path log) {
        try {
            return Files.readString(log).contains("seems to be in use by another process");
        } catch (IOException | java.io.UncheckedIOException e) {
            return false;
        }
    }
}
