package dev.allot.nodeagent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.allot.nodeagent.gpu.FakeGpuBackend;
import dev.allot.nodeagent.process.JobLauncher;
import dev.allot.nodeagent.process.JobSandbox;
import dev.allot.nodeagent.process.SecretStore;
import dev.allot.schemas.ChargeMode;
import dev.allot.schemas.JobCheckpointed;
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
 * allot.agent.job-uids (real processes): a root agent gives each running replica a uid of its own, so one job
 * cannot write another's checkpoint marker (forging its checkpoint) or read its dirs; a replica's dirs go back to
 * the agent when it ends, so the next holder of the uid cannot reach them. An agent that is not root refuses it.
 */
class ReplicaUidTest {

    private static final Duration WAIT = Duration.ofSeconds(30);
    private final ScheduledExecutorService timers = Executors.newScheduledThreadPool(2);

    @AfterEach
    void stopTimers() {
        timers.shutdownNow();
    }

    @Test
    void givenPerReplicaUids_whenTwoJobsRun_thenEachHasItsOwnUidAndCannotTouchTheOthersCheckpointDir(@TempDir Path dir)
            throws Exception {
        if (!"root".equals(System.getProperty("user.name"))) {
            assertThatThrownBy(() -> JobSandbox.configured(Optional.empty(), Optional.of("200000-200009"), "/usr/bin:/bin"))
                    .hasMessageContaining("needs the agent to run as root");
            return;
        }
        Files.setPosixFilePermissions(dir, java.nio.file.attribute.PosixFilePermissions.fromString("rwx--x--x"));
        RecordingReports recorded = new RecordingReports();
        StateDir state = new StateDir(dir.resolve("state"));
        long epoch = state.nextEpoch("n1", System.currentTimeMillis());
        JobSandbox sandbox = JobSandbox.configured(Optional.empty(), Optional.of("200000-200009"), "/usr/bin:/bin");
        NodeAgent agent = new NodeAgent(List.of(new HostedNode("n1", "test", new FakeGpuBackend(2), epoch)), state,
                recorded, new AgentMetrics(new SimpleMeterRegistry()), Clock.systemUTC(), timers, "test",
                new JobLauncher(state, sandbox, new SecretStore(Optional.empty()), () -> null));
        String victim = "victim-" + UUID.randomUUID();
        String intruder = "intruder-" + UUID.randomUUID();
        Path victimDir = state.checkpointDir(victim, 0);

        agent.handle(start(victim, epoch, 0, "id -u; touch \"$ALLOT_CHECKPOINT_DIR/ready\"; sleep 30"));
        await().atMost(WAIT).until(() -> Files.exists(victimDir.resolve("ready")));
        agent.handle(start(intruder, epoch, 1, "id -u; echo /forged > \"" + victimDir + "/checkpoint\" 2>/dev/null"
                + " && echo wrote || echo denied; ls \"" + victimDir + "\" >/dev/null 2>&1 && echo listed || echo unlisted"));
        await().atMost(WAIT).until(() -> exited(recorded, intruder));
        agent.pollCheckpoints();

        List<String> victimOut = Files.readAllLines(state.logFile(victim, 0));
        List<String> intruderOut = Files.readAllLines(state.logFile(intruder, 0));
        int victimUid = Integer.parseInt(victimOut.get(0));
        int intruderUid = Integer.parseInt(intruderOut.get(0));
        assertThat(victimUid).isBetween(200000, 200009);
        assertThat(intruderUid).isBetween(200000, 200009).isNotEqualTo(victimUid);
        assertThat(intruderOut).contains("denied", "unlisted");
        assertThat(recorded.jobEvents).noneMatch(r -> r.payload() instanceof JobCheckpointed);
        // the intruder has ended: its dirs are the agent's again, so its uid can go to the next replica
        assertThat((Integer) Files.getAttribute(state.checkpointDir(intruder, 0), "unix:uid")).isZero();
        assertThat((Integer) Files.getAttribute(victimDir, "unix:uid")).isEqualTo(victimUid);

        agent.stopAll(Duration.ofSeconds(1));
        assertThat((Integer) Files.getAttribute(victimDir, "unix:uid")).isZero();
    }

    private static boolean exited(RecordingReports recorded, String jobId) {
        return recorded.jobEvents.stream().anyMatch(r -> r.key().equals(jobId) && r.payload() instanceof JobExited);
    }

    private static NodeCommand start(String jobId, long epoch, int gpu, String script) {
        return NodeCommand.newBuilder().setEventId(UUID.randomUUID().toString()).setOccurredAt(Instant.now())
                .setPayload(StartJob.newBuilder().setJobId(jobId).setNodeId("n1").setNodeEpoch(epoch)
                        .setReplicaIndex(0).setReplicas(1).setGpuIndices(List.of(gpu))
                        .setCommand(List.of("sh", "-c", script)).setEnv(Map.of()).setRestartCount(0)
                        .setBudget("lab/team-a").setCluster("test").setChargeMode(ChargeMode.ALLOCATED).build())
                .build();
    }
}
