package dev.allot.testsupport;

import java.time.Duration;
import java.util.Map;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.utility.DockerImageName;

/**
 * The broker and the registry as containers, for {@code -Dallot.infra=testcontainers}: the images
 * {@code bin/allot images} builds ({@code allot/kafka:4.1.2}, {@code allot/apicurio-registry:3.3.3};
 * {@code -Dallot.infra.kafka-image} / {@code -Dallot.infra.registry-image} override), on the host network
 * at free loopback ports, so clients reach them exactly as they reach the in-JVM ones. Meant to run with
 * {@code TESTCONTAINERS_HOST_OVERRIDE=localhost} and {@code TESTCONTAINERS_RYUK_DISABLED=true} (no Ryuk
 * image here): the shutdown hook of {@link AllotInfrastructure} stops both containers.
 */
final class ContainerInfrastructure implements AutoCloseable {

    static final String LABEL = "dev.allot.infra";
    private static final Duration STARTUP = Duration.ofMinutes(3);

    private final GenericContainer<?> kafka;
    private final GenericContainer<?> registry;
    private final int kafkaPort;
    private final int registryPort;

    private ContainerInfrastructure(GenericContainer<?> kafka, GenericContainer<?> registry, int kafkaPort, int registryPort) {
        this.kafka = kafka;
        this.registry = registry;
        this.kafkaPort = kafkaPort;
        this.registryPort = registryPort;
    }

    static ContainerInfrastructure start() {
        int kafkaPort = LoopbackPorts.free();
        int controllerPort = LoopbackPorts.free();
        int registryPort = LoopbackPorts.free();
        GenericContainer<?> kafka = new GenericContainer<>(DockerImageName.parse(
                System.getProperty("allot.infra.kafka-image", "allot/kafka:4.1.2")))
                .withNetworkMode("host")
                .withLabels(Map.of(LABEL, "testcontainers"))
                // the image's broker is LocalBroker's, plaintext (no principals' secrets mounted)
                .withEnv("ALLOT_KAFKA_PORT", String.valueOf(kafkaPort))
                .withEnv("ALLOT_KAFKA_CONTROLLER_PORT", String.valueOf(controllerPort))
                .withEnv("ALLOT_KAFKA_LISTEN_HOST", "127.0.0.1")
                .withEnv("ALLOT_KAFKA_ADVERTISED_HOST", "localhost")
                // the port wait strategies need mapped ports, which the host network has not: ask from inside
                .waitingFor(Wait.forSuccessfulCommand("bash -c 'exec 3<>/dev/tcp/127.0.0.1/" + kafkaPort + "'")
                        .withStartupTimeout(STARTUP));
        GenericContainer<?> registry = new GenericContainer<>(DockerImageName.parse(
                System.getProperty("allot.infra.registry-image", "allot/apicurio-registry:3.3.3")))
                .withNetworkMode("host")
                .withLabels(Map.of(LABEL, "testcontainers"))
                .withEnv("QUARKUS_HTTP_HOST", "127.0.0.1")
                .withEnv("QUARKUS_HTTP_PORT", String.valueOf(registryPort))
                // in-memory storage: a test registry forgets its schemas with the container, as the in-JVM one does
                .withEnv("APICURIO_STORAGE_KIND", "sql")
                .withEnv("APICURIO_DATASOURCE_URL", "jdbc:h2:mem:registry;DB_CLOSE_DELAY=-1")
                .waitingFor(Wait.forSuccessfulCommand("curl -sf http://127.0.0.1:" + registryPort + "/apis/registry/v3/system/info")
                        .withStartupTimeout(STARTUP));
        try {
            kafka.start();
            registry.start();
        } catch (RuntimeException e) {
            kafka.stop();
            registry.stop();
            throw new IllegalStateException("could not start the broker and registry containers (-Dallot.infra=testcontainers;"
                    + " images from 'bin/allot images', a Docker engine answering): " + e.getMessage(), e);
        }
        ContainerInfrastructure started = new ContainerInfrastructure(kafka, registry, kafkaPort, registryPort);
        // one line, so that a run can tell it ran against containers (bin/allot compose smoke checks it)
        System.err.printf("allot-infra: testcontainers: broker %s (%s) at %s, registry %s (%s) at %s%n",
                kafka.getDockerImageName(), kafka.getContainerId().substring(0, 12), started.bootstrapServers(),
                registry.getDockerImageName(), registry.getContainerId().substring(0, 12), started.registryUrl());
        return started;
    }

    String bootstrapServers() {
        return "localhost:" + kafkaPort;
    }

    String registryUrl() {
        return "http://127.0.0.1:" + registryPort;
    }

    @Override
    public void close() {
        registry.stop();
        kafka.stop();
    }
}
