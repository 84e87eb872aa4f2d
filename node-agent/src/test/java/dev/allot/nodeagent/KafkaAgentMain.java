package dev.allot.nodeagent;

import dev.allot.edge.KafkaClients;
import dev.allot.edge.security.KafkaSecurity;
import dev.allot.nodeagent.gpu.FakeGpuBackend;
import dev.allot.nodeagent.process.JobLauncher;
import dev.allot.nodeagent.process.JobSandbox;
import dev.allot.nodeagent.process.SecretStore;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * A real agent run ({@link AgentStartup}, as the Quarkus app wires it, with its real Kafka clients) in a JVM of its
 * own, for tests that kill it with SIGKILL and start it again: one fake node of 4 GPUs. Prints {@code ready} once
 * the node is registered, then runs until killed.
 *
 * <p>Arguments: bootstrap servers, registry URL, state dir, cluster, node id, readopt-within in ms.
 */
public final class KafkaAgentMain {

    /** A launched agent process and its node's epoch once it printed {@code ready}. */
    record Launched(Process process, CompletableFuture<Long> ready) {
    }

    /**
     * Starts the agent as a child JVM; its output is copied to {@code target/<logPrefix>-<pid>.log}. {@code ready}
     * completes with the node's epoch, or fails when the process ends before it is ready.
     */
    static Launched launch(String bootstrap, String registryUrl, Path state, String cluster, String node,
            Duration readoptWithin, String logPrefix) throws Exception {
        String java = ProcessHandle.current().info().command().orElse("java");
        Process agent = new ProcessBuilder(java, "-Xmx256m", "-XX:TieredStopAtLevel=1", "-cp",
                System.getProperty("java.class.path"), KafkaAgentMain.class.getName(), bootstrap, registryUrl,
                state.toString(), cluster, node, Long.toString(readoptWithin.toMillis()))
                .redirectErrorStream(true).start();
        CompletableFuture<Long> ready = new CompletableFuture<>();
        Thread reader = new Thread(() -> {
            Path log = Path.of("target", logPrefix + "-" + agent.pid() + ".log");
            try (BufferedReader out = new BufferedReader(new InputStreamReader(agent.getInputStream(),
                    StandardCharsets.UTF_8)); var copy = Files.newBufferedWriter(log)) {
                String line;
                while ((line = out.readLine()) != null) {
                    copy.write(line);
                    copy.newLine();
                    copy.flush();
                    if (line.startsWith("ready ")) {
                        ready.complete(Long.parseLong(line.substring(6).strip()));
                    }
                }
            } catch (Exception e) {
                // the agent was killed
            }
            ready.completeExceptionally(new IllegalStateException("the agent ended before it was ready"));
        }, "agent-output");
        reader.setDaemon(true);
        reader.start();
        return new Launched(agent, ready);
    }

    public static void main(String[] args) throws Exception {
        StateDir state = new StateDir(Path.of(args[2]));
        AgentStartup run = AgentStartup.start(new AgentStartup.Plan(
                new KafkaClients(args[0], args[1], KafkaSecurity.PLAINTEXT),
                new AgentMetrics(new SimpleMeterRegistry()), Clock.systemUTC(), state,
                "test-agent:" + ProcessHandle.current().pid(), args[3], List.of(args[4]), () -> new FakeGpuBackend(4),
                new JobLauncher(state, JobSandbox.asAgentUser(), new SecretStore(Optional.empty()), () -> null),
                Duration.ofSeconds(2), Duration.ofMillis(Long.parseLong(args[5])), Duration.ofMillis(300),
                Duration.ofMillis(500), Duration.ofMillis(200), () -> null));
        System.out.println("ready " + run.agent().nodes().get(0).epoch());
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }
}
