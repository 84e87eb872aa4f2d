package dev.allot.e2e;

import dev.allot.edge.security.KafkaSecurity;
import dev.allot.testsupport.LoopbackPorts;
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
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * One Allot service as a real OS process: {@code java -jar <module>/target/quarkus-app/quarkus-run.jar}
 * on a free loopback port, pointed at the test's broker and registry. {@link #kill()} is a crash
 * (SIGKILL), {@link #stop()} a clean stop.
 */
final class ServiceProcess implements AutoCloseable {

    /** How many times each module was started in this JVM: names the log of each incarnation. */
    private static final Map<String, Integer> INCARNATIONS = new java.util.concurrent.ConcurrentHashMap<>();

    private final String name;
    private final List<String> command;
    private final Path appDir;
    private final Path log;
    private final int port;
    private Process process;

    private ServiceProcess(String name, List<String> command, Path appDir, Path log, int port) {
        this.name = name;
        this.command = command;
        this.appDir = appDir;
        this.log = log;
        this.port = port;
    }

    static ServiceProcess of(String module, String bootstrap, String registryUrl, Path stateDir,
                             Map<String, String> properties) throws IOException {
        return of(module, bootstrap, registryUrl, stateDir, properties, KafkaSecurity.PLAINTEXT);
    }

    /**
     * Instance {@code instance} ({@code allot.accounting.instance-id} {@code <application>-<instance>}) of the
     * accounting Streams application {@code allot-accounting-<application>}, its stores in {@code stateDir/streams},
     * committing every {@code commitMillis}; {@code more} properties besides.
     */
    static ServiceProcess accounting(String bootstrap, String registryUrl, Path stateDir, String application,
                                     int instance, int commitMillis, Map<String, String> more, KafkaSecurity security)
            throws IOException {
        Map<String, String> properties = new java.util.HashMap<>(more);
        properties.put("quarkus.kafka-streams.application-id", "allot-accounting-" + application);
        properties.put("allot.accounting.instance-id", application + "-" + instance);
        properties.put("kafka-streams.state.dir", stateDir.resolve("streams").toString());
        properties.put("kafka-streams.commit.interval.ms", Integer.toString(commitMillis));
        return of("accounting-service", bootstrap, registryUrl, stateDir, properties, security);
    }

    /**
     * @param security how the service authenticates to Kafka, passed as {@code bin/allot up} passes it: its
     *     {@code kafka.security.protocol}, {@code kafka.sasl.mechanism}, {@code kafka.sasl.jaas.config} in a file of
     *     its own (mode 0600) named by {@code -Dquarkus.config.locations}; the password on no command line and in
     *     no environment (a node agent's jobs inherit its environment)
     */
    static ServiceProcess of(String module, String bootstrap, String registryUrl, Path stateDir,
                             Map<String, String> properties, KafkaSecurity security) throws IOException {
        Path root = Path.of(System.getProperty("allot.root", "..")).toAbsolutePath().normalize();
        // -Dallot.e2e.jar.<module>=... runs another build of a module (e.g. a benchmark's baseline)
        Path jar = Path.of(System.getProperty("allot.e2e.jar." + module,
                root.resolve(module).resolve("target/quarkus-app/quarkus-run.jar").toString()));
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException(jar + " is missing: package the services first (bin/allot test builds"
                    + " every module before this one)");
        }
        int port = LoopbackPorts.free();
        Files.createDirectories(stateDir);
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> command = new ArrayList<>(List.of(java, "-Xmx384m", "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1",
                "-Dquarkus.http.host=127.0.0.1", "-Dquarkus.http.port=" + port,
                "-Dkafka.bootstrap.servers=" + bootstrap,
                "-Dquarkus.kafka-streams.bootstrap-servers=" + bootstrap,
                "-Dallot.registry.url=" + registryUrl,
                "-Dmp.messaging.connector.smallrye-kafka.apicurio.registry.url=" + registryUrl + "/apis/registry/v3",
                "-Dallot.state-dir=" + stateDir));
        // the class-data archive the build made (quarkus.package.jar.appcds), as bin/allot starts the services: it
        // names the class path as the build ran it, '-jar quarkus-run.jar' in the app's directory (see start())
        Path archive = jar.resolveSibling("app-cds.jsa");
        if (Files.isRegularFile(archive)) {
            command.add("-XX:SharedArchiveFile=" + archive);
        }
        // -Dallot.e2e.jvm-options="..." adds JVM options after these (later ones win): a benchmark's own heap,
        // compiler or a flight recording (filename=...%p.jfr gives each process its own file)
        String extra = System.getProperty("allot.e2e.jvm-options", "").trim();
        if (!extra.isEmpty()) {
            command.addAll(List.of(extra.split("\\s+")));
        }
        // every service trusts test-support's tokens (the budget-service's API needs one)
        dev.allot.testsupport.TestTokens.serviceConfig().forEach((key, value) -> command.add("-D" + key + "=" + value));
        properties.forEach((key, value) -> command.add("-D" + key + "=" + value));
        if (security.authenticated()) {
            command.add("-Dquarkus.config.locations=" + kafkaConfig(stateDir, security));
        }
        command.addAll(List.of("-jar", jar.getFileName().toString()));
        Path logDir = Files.createDirectories(Path.of("target/e2e-logs"));
        // A service started again in this JVM (e.g. the scheduler after a crash) logs to a file of its own,
        // <module>-2.log, -3, ..., so that the crashed instance's log survives next to its successor's.
        int incarnation = INCARNATIONS.merge(module, 1, Integer::sum);
        String logName = incarnation == 1 ? module + ".log" : module + "-" + incarnation + ".log";
        return new ServiceProcess(module, command, jar.toAbsolutePath().getParent(), logDir.resolve(logName), port);
    }

    /**
     * The same service as a new process, as an operator restarts it: the same command line (port, state dir,
     * settings), a log of its own next to the last one's.
     */
    ServiceProcess again() {
        int incarnation = INCARNATIONS.merge(name, 1, Integer::sum);
        return new ServiceProcess(name, command, appDir, log.resolveSibling(name + "-" + incarnation + ".log"), port);
    }

    ServiceProcess start() throws IOException {
        process = new ProcessBuilder(command).directory(appDir.toFile()).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        return this;
    }

    /** Waits until {@code /q/health/ready} answers 200. */
    ServiceProcess awaitReady(Duration timeout) {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
        HttpRequest ready = HttpRequest.newBuilder(URI.create(url() + "/q/health/ready"))
                .timeout(Duration.ofSeconds(2)).build();
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException(name + " exited with " + process.exitValue() + "; see " + log);
            }
            try {
                if (http.send(ready, HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
                    return this;
                }
            } catch (IOException notYet) {
                // not listening yet
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
            try {
                process.waitFor(200, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
        throw new IllegalStateException(name + " not ready after " + timeout + "; see " + log);
    }

    String url() {
        return "http://127.0.0.1:" + port;
    }

    long pid() {
        return process.pid();
    }

    boolean isAlive() {
        return process != null && process.isAlive();
    }

    /** A crash: SIGKILL, no shutdown hooks, no commits. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
    }

    void stop() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            process.waitFor(10, TimeUnit.SECONDS);
        }
    }

    @Override
    public void close() throws InterruptedException {
        if (isAlive()) {
            stop();
        }
    }

    private static Path kafkaConfig(Path stateDir, KafkaSecurity security) throws IOException {
        Path file = stateDir.resolve("kafka.properties");
        Files.deleteIfExists(file);
        Files.createFile(file, java.nio.file.attribute.PosixFilePermissions.asFileAttribute(
                java.nio.file.attribute.PosixFilePermissions.fromString("rw-------")));
        java.util.Properties properties = new java.util.Properties();
        security.clientConfig().forEach((key, value) -> properties.setProperty("kafka." + key, value.toString()));
        try (var out = Files.newBufferedWriter(file)) {
            properties.store(out, "the service's Kafka principal");
        }
        return file;
    }
}
