package dev.allot.testsupport;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bin/allot infra up|status|down} and {@code bin/allot smoke} for real: a broker process and a
 * registry process on free ports, data in a temporary ALLOT_HOME. Up twice is harmless, smoke passes,
 * down leaves no process behind.
 */
class BinAllotInfraTest {

    @TempDir
    Path home;

    private Map<String, String> env;
    private Path root;

    @BeforeEach
    void givenAnEmptyAllotHomeWithTheDistributionsAtHand() throws IOException {
        root = RepositoryRoot.get();
        // The build already resolved Kafka and unpacked the registry: point ALLOT_HOME at them so the
        // script does not run Maven inside Maven.
        Path dist = Files.createDirectories(home.resolve("dist"));
        Files.writeString(dist.resolve("kafka-4.1.2.classpath"), System.getProperty("java.class.path"));
        Files.createSymbolicLink(dist.resolve("apicurio-registry-" + RegistryDistribution.VERSION),
                RegistryDistribution.locate());
        env = Map.of(
                "ALLOT_HOME", home.toString(),
                "ALLOT_KAFKA_PORT", String.valueOf(LoopbackPorts.free()),
                "ALLOT_KAFKA_CONTROLLER_PORT", String.valueOf(LoopbackPorts.free()),
                "ALLOT_REGISTRY_PORT", String.valueOf(LoopbackPorts.free()));
    }

    @AfterEach
    void stopWhateverIsLeft() throws Exception {
        run("infra", "down");
    }

    @Test
    void givenNothingRunning_whenUpTwiceThenSmokeThenDown_thenAllWorksAndNoProcessIsLeft() throws Exception {
        Result first = run("infra", "up");
        assertThat(first.exitCode()).as(first.output()).isZero();
        assertThat(first.output()).contains("kafka 127.0.0.1:" + env.get("ALLOT_KAFKA_PORT") + " up")
                .contains("schema-registry http://127.0.0.1:" + env.get("ALLOT_REGISTRY_PORT") + " up")
                .contains("kafka-controller 127.0.0.1:" + env.get("ALLOT_KAFKA_CONTROLLER_PORT") + " up");
        long kafkaPid = pid("kafka/kafka.pid");
        long controllerPid = pid("kafka/controller.pid");
        long registryPid = pid("registry/registry.pid");
        // the KRaft controller in a process of its own: the broker's SIGKILL does not take it along
        assertThat(controllerPid).isNotEqualTo(kafkaPid);
        assertThat(Files.readString(home.resolve("kafka/server.properties"))).contains("process.roles=broker\n");
        assertThat(Files.readString(home.resolve("kafka/controller/server.properties")))
                .contains("process.roles=controller\n");

        Result second = run("infra", "up");
        assertThat(second.exitCode()).as(second.output()).isZero();
        assertThat(second.output()).contains("kafka already running").contains("schema registry already running");
        assertThat(pid("kafka/kafka.pid")).isEqualTo(kafkaPid);
        assertThat(pid("registry/registry.pid")).isEqualTo(registryPid);

        Result smoke = run("smoke");
        assertThat(smoke.exitCode()).as(smoke.output()).isZero();
        assertThat(smoke.output()).contains("smoke ok").contains("magic 0");

        Result down = run("infra", "down");
        assertThat(down.exitCode()).as(down.output()).isZero();
        assertThat(ProcessHandle.of(kafkaPid).map(ProcessHandle::isAlive)).isNotEqualTo(java.util.Optional.of(true));
        assertThat(ProcessHandle.of(registryPid).map(ProcessHandle::isAlive)).isNotEqualTo(java.util.Optional.of(true));
        assertThat(ProcessHandle.of(controllerPid).map(ProcessHandle::isAlive)).isNotEqualTo(java.util.Optional.of(true));
        assertThat(run("infra", "status").output()).contains("kafka 127.0.0.1:" + env.get("ALLOT_KAFKA_PORT") + " down")
                .contains("kafka-controller 127.0.0.1:" + env.get("ALLOT_KAFKA_CONTROLLER_PORT") + " down");
    }

    @Test
    void givenThePortTaken_whenUp_thenItSaysWhichPortAndStartsNothing() throws Exception {
        try (var taken = new java.net.ServerSocket(Integer.parseInt(env.get("ALLOT_REGISTRY_PORT")), 1,
                java.net.InetAddress.getLoopbackAddress())) {
            Result up = run("infra", "up");
            assertThat(up.exitCode()).isNotZero();
            assertThat(up.output()).contains("port " + env.get("ALLOT_REGISTRY_PORT")).contains("taken");
            assertThat(Files.exists(home.resolve("kafka/kafka.pid"))).isFalse();
            assertThat(Files.exists(home.resolve("kafka/controller.pid"))).isFalse();
        }
    }

    @Test
    void givenServiceStateAndNoServiceRunning_whenReset_thenEveryServiceStateGoesAndTheLogsStay() throws Exception {
        Path streams = Files.createDirectories(home.resolve("accounting-service/streams/allot-accounting/0_0"));
        Files.writeString(streams.resolve("offsets"), "42");
        Files.createDirectories(home.resolve("node-agent")).resolve("epoch").toFile().createNewFile();
        Path log = Files.createDirectories(home.resolve("services")).resolve("accounting-service.log");
        Files.writeString(log, "last run");

        Result reset = run("infra", "reset");

        assertThat(reset.exitCode()).as(reset.output()).isZero();
        assertThat(home.resolve("accounting-service")).doesNotExist();
        assertThat(home.resolve("node-agent")).doesNotExist();
        assertThat(log).hasContent("last run");
        assertThat(home.resolve("dist")).exists();
    }

    @Test
    void givenAServiceRunning_whenReset_thenRefusedNamingItAndNothingDeleted() throws Exception {
        Path state = Files.createDirectories(home.resolve("scheduler-service"));
        Path services = Files.createDirectories(home.resolve("services"));
        // a live pid stands for the running service: this test's own JVM
        Files.writeString(services.resolve("scheduler-service.pid"), String.valueOf(ProcessHandle.current().pid()));

        Result reset = run("infra", "reset");

        assertThat(reset.exitCode()).isNotZero();
        assertThat(reset.output()).contains("scheduler-service still running").contains("bin/allot down");
        assertThat(state).exists();
        Files.delete(services.resolve("scheduler-service.pid"));
    }

    private long pid(String file) throws IOException {
        return Long.parseLong(Files.readString(home.resolve(file)).trim());
    }

    private record Result(int exitCode, String output) {
    }

    private Result run(String... args) throws Exception {
        List<String> command = new java.util.ArrayList<>(List.of(root.resolve("bin/allot").toString()));
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().putAll(env);
        builder.environment().put("JAVA_HOME", System.getProperty("java.home"));
        Process process = builder.start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(3, TimeUnit.MINUTES)).isTrue();
        return new Result(process.exitValue(), output);
    }
}
