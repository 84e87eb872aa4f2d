package dev.allot.cli;

import dev.allot.testsupport.AllotInfrastructure;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * The real budget-service, as a process ({@code budget-service/target/quarkus-app/quarkus-run.jar},
 * packaged before this module in the reactor) on a free port, over the shared test broker and registry;
 * one per test JVM. Tests write the other services' facts (registrations, verdicts, snapshots, usage)
 * straight onto the topics, as those services would.
 */
final class BudgetService {

    private static BudgetService shared;

    final AllotInfrastructure infra;
    final String url;
    private final Process process;
    private final KafkaProducer<String, SpecificRecord> producer;
    private final HttpClient http = HttpClient.newHttpClient();

    private BudgetService(AllotInfrastructure infra, String url, Process process) {
        this.infra = infra;
        this.url = url;
        this.process = process;
        this.producer = infra.producer();
    }

    static synchronized BudgetService shared() throws Exception {
        if (shared == null) {
            shared = start(AllotInfrastructure.shared());
        }
        return shared;
    }

    private static BudgetService start(AllotInfrastructure infra) throws Exception {
        Path root = Path.of(System.getProperty("allot.root", "..")).toAbsolutePath().normalize();
        Path jar = root.resolve("budget-service/target/quarkus-app/quarkus-run.jar");
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException(jar + " is missing: build the budget-service first"
                    + " (./mvnw -pl cli,budget-service -am verify builds it before this module)");
        }
        int port = dev.allot.testsupport.LoopbackPorts.free();
        Path log = Files.createDirectories(Path.of("target")).resolve("budget-service.log");
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> command = new java.util.ArrayList<>(List.of(java, "-Xmx256m", "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1", "-Dquarkus.http.host=127.0.0.1", "-Dquarkus.http.port=" + port,
                "-Dkafka.bootstrap.servers=" + infra.bootstrapServers(),
                "-Dallot.registry.url=" + infra.registryUrl(),
                "-Dallot.budget.node-lost-after=1h"));
        // trust the test tokens (TestTokens' key, issuer and audience)
        dev.allot.testsupport.TestTokens.serviceConfig().forEach((key, value) -> command.add("-D" + key + "=" + value));
        command.addAll(List.of("-jar", jar.toString()));
        Process process = new ProcessBuilder(command)
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.to(log.toFile())).start();
        Runtime.getRuntime().addShutdownHook(new Thread(process::destroy, "budget-service-stop"));
        BudgetService service = new BudgetService(infra, "http://127.0.0.1:" + port, process);
        service.awaitReady(Duration.ofMinutes(2), log);
        return service;
    }

    private void awaitReady(Duration timeout, Path log) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        HttpRequest ready = HttpRequest.newBuilder(URI.create(url + "/q/health/ready")).timeout(Duration.ofSeconds(2)).build();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException("budget-service exited with " + process.exitValue() + "; see " + log);
            }
            try {
                if (http.send(ready, HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
                    return;
                }
            } catch (IOException notYet) {
                // not listening yet
            }
            process.waitFor(200, TimeUnit.MILLISECONDS);
        }
        throw new IllegalStateException("budget-service not ready after " + timeout + "; see " + log);
    }

    /** An HTTP call for the test's own setup (the budget tree); answers the status. */
    int call(String method, String path, String json) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create(url + path)).header("Content-Type", "application/json")
                .header("Authorization", dev.allot.testsupport.TestTokens.bearer("cli-test-setup",
                        dev.allot.testsupport.TestTokens.ADMIN_GROUP))
                .method(method, json == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(json))
                .build();
        return http.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
    }

    <V extends SpecificRecord> void publish(dev.allot.schemas.catalogue.Topic<String, V> topic, String key, V value) {
        try {
            producer.send(new ProducerRecord<>(topic.name(), key, value)).get();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
