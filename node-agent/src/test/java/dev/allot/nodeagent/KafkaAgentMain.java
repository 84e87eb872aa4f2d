package dev.allot.nodeagent;

import dev.allot.edge.KafkaClients;
import dev.allot.edge.security.KafkaSecurity;
import dev.allot.nodeagent.gpu.FakeGpuBackend;
import dev.allot.nodeagent.process.JobLauncher;
import dev.allot.nodeagent.process.JobSandbox;
import dev.allot.nodeagent.process.SecretStore;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * A real agent run ({@link AgentStartup}, as the Quarkus app wires it, with its real Kafka clients) in a JVM of its
 * own, for tests that kill it with SIGKILL and start it again: one fake node of 4 GPUs. Prints {@code ready} once
 * the node is registered, then runs until killed.
 *
 * <p>Arguments: bootstrap servers, registry URL, state dir, cluster, node id, readopt-within in ms.
 */
public final class KafkaAgentMain {

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
