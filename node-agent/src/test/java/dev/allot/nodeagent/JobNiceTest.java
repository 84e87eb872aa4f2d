package dev.allot.nodeagent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.allot.nodeagent.gpu.FakeGpuBackend;
import dev.allot.nodeagent.process.JobLauncher;
import dev.allot.nodeagent.process.JobSandbox;
import dev.allot.nodeagent.process.SecretStore;
import dev.allot.schemas.ChargeMode;
import dev.allot.schemas.JobExited;
import dev.allot.schemas.NodeCommand;
import dev.allot.schemas.StartJob;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * allot.agent.job-nice (real processes): a job's whole chain runs at the configured niceness, below the agent,
 * and the job (unprivileged) cannot take it back; 0 leaves jobs at the agent's own.
 */
class JobNiceTest {

    private static final Duration WAIT = Duration.ofSeconds(30);
    /** The job's niceness (field 19 of /proc/self/stat, the 17th after the command name), then a try to lower it. */
    private static final String SCRIPT = "sed 's/.*) //' /proc/$$/stat | cut -d' ' -f17;"
            + " renice -n 0 -p $$ >/dev/null 2>&1 && echo lowered || echo refused";
    private final ScheduledExecutorService timers = Executors.newScheduledThreadPool(2);

    @AfterEach
    void stopTimers() {
        timers.shutdownNow();
    }

    @Test
    void givenJobNice10_whenAJobRuns_thenItRunsAtNice10AndCannotLowerIt(@TempDir Path dir) throws Exception {
        JobSandbox sandbox = JobSandbox.configured(Optional.empty(), Optional.empty(), "/usr/bin:/bin").niced(10);

        List<String> out = run(dir, sandbox);

        assertThat(out.get(0)).isEqualTo(Integer.toString(Math.max(10, agentNice())));
        // unprivileged (nobody under a root agent, or the agent's own user): lowering it is refused
        assertThat(out.get(1)).isEqualTo("refused");
        assertThat(sandbox.describe()).endsWith(" at nice 10");
    }

    @Test
    void givenJobNice0_whenAJobRuns_thenItRunsAtTheAgentsNiceness(@TempDir Path dir) throws Exception {
        List<String> out = run(dir, JobSandbox.configured(Optional.empty(), Optional.empty(), "/usr/bin:/bin").niced(0));

        assertThat(out.get(0)).isEqualTo(Integer.toString(agentNice()));
    }

    @Test
    void givenANicenessOutOf0To19_whenConfigured_thenRefusedNamingTheKey() {
        assertThatThrownBy(() -> JobSandbox.asAgentUser().niced(20)).hasMessageContaining("allot.agent.job-nice");
        assertThatThrownBy(() -> JobSandbox.asAgentUser().niced(-1)).hasMessageContaining("allot.agent.job-nice");
    }

    private List<String> run(Path dir, JobSandbox sandbox) throws Exception {
        // a root agent runs jobs as nobody, who must be able to pass through to its dirs
        Files.setPosixFilePermissions(dir, java.nio.file.attribute.PosixFilePermissions.fromString("rwx--x--x"));
        RecordingReports recorded = new RecordingReports();
        StateDir state = new StateDir(dir.resolve("state"));
        long epoch = state.nextEpoch("n1", System.currentTimeMillis());
        NodeAgent agent = new NodeAgent(List.of(new HostedNode("n1", "test", new FakeGpuBackend(1), epoch)), state,
                recorded, new AgentMetrics(new SimpleMeterRegistry()), Clock.systemUTC(), timers, "test",
                new JobLauncher(state, sandbox, new SecretStore(Optional.empty()), () -> null));
        String job = "nice-" + UUID.randomUUID();
        agent.handle(NodeCommand.newBuilder().setEventId(UUID.randomUUID().toString()).setOccurredAt(Instant.now())
                .setPayload(StartJob.newBuilder().setJobId(job).setNodeId("n1").setNodeEpoch(epoch)
                        .setReplicaIndex(0).setReplicas(1).setGpuIndices(List.of(0))
                        .setCommand(List.of("sh", "-c", SCRIPT)).setEnv(Map.of()).setRestartCount(0)
                        .setBudget("lab/team-a").setCluster("test").setChargeMode(ChargeMode.ALLOCATED).build())
                .build());
        await().atMost(WAIT).until(() -> recorded.jobEvents.stream()
                .anyMatch(r -> r.key().equals(job) && r.payload() instanceof JobExited));
        agent.stopAll(Duration.ofSeconds(1));
        return Files.readAllLines(state.logFile(job, 0));
    }

    /** This JVM's own niceness (a test run under nice starts from it). */
    private static int agentNice() throws Exception {
        String stat = Files.readString(Path.of("/proc/self/stat"));
        return Integer.parseInt(stat.substring(stat.lastIndexOf(") ") + 2).split(" ")[16]);
    }
}
