package dev.allot.nodeagent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.allot.nodeagent.gpu.FakeGpuBackend;
import dev.allot.schemas.ChargeMode;
import dev.allot.schemas.JobExited;
import dev.allot.schemas.JobStarted;
import dev.allot.schemas.NodeCommand;
import dev.allot.schemas.StartJob;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An agent that dies without cleaning up (no stopAll), and the next run on the same state dir: its process is
 * fenced before the node registers again, under a greater epoch. Real processes; reports in memory.
 */
class AgentRestartTest {

    private final ScheduledExecutorService timers = Executors.newScheduledThreadPool(1);
    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();

    @AfterEach
    void stopTimers() {
        timers.shutdownNow();
    }

    @Test
    void givenAgentDiedWithARunningJob_whenItRestarts_thenTheOldEpochProcessIsKilledAndReported(@TempDir Path dir) {
        StateDir state = new StateDir(dir);
        long firstEpoch = state.nextEpoch("n1", System.currentTimeMillis());
        RecordingReports firstRun = new RecordingReports();
        NodeAgent crashed = new NodeAgent(List.of(new HostedNode("n1", "test", new FakeGpuBackend(2), firstEpoch)),
                state, firstRun, new AgentMetrics(meters), Clock.systemUTC(), timers, "first");
        NodeAgent.Outcome outcome = crashed.handle(NodeCommand.newBuilder()
                .setEventId(UUID.randomUUID().toString()).setOccurredAt(Instant.now())
                .setPayload(StartJob.newBuilder().setJobId("long").setNodeId("n1").setNodeEpoch(firstEpoch)
                        .setReplicaIndex(0).setReplicas(1).setGpuIndices(List.of(0, 1))
                        .setCommand(List.of("sleep", "600")).setEnv(Map.of()).setRestartCount(0)
                        .setBudget("lab/team-a").setCluster("test").setChargeMode(ChargeMode.UNALLOCATED).build())
                .build());
        assertThat(outcome).isEqualTo(NodeAgent.Outcome.STARTED);
        long pid = ((JobStarted) firstRun.jobEvents.get(0).payload()).getPid();
        // Running means the command (sleep) runs under its supervisor. Reaped before its exec, the SIGTERM may be
        // swallowed by the supervisor's shell (its trap) and the command start after it: SIGKILL, 137 not 143.
        await().atMost(Duration.ofSeconds(10)).until(() -> ProcessHandle.of(pid).map(p -> p.descendants()
                .anyMatch(d -> d.info().command().map(c -> c.endsWith("/sleep")).orElse(false))).orElse(false));
        crashed.reportUsage(); // a tile (unless 0 ms passed), so the ledger remembers how far usage was reported
        Instant reportedUntil = firstRun.usage.isEmpty() ? firstRun.jobEvents.get(0).occurredAt()
                : firstRun.usage.get(0).getIntervalEnd();

        // The next run, as AgentRuntime does it: fence, then take a new epoch.
        RecordingReports secondRun = new RecordingReports();
        int killed = new StaleProcessReaper(secondRun, new AgentMetrics(meters), Clock.systemUTC())
                .reap(List.of("n1"), crashed::ledger, Duration.ofSeconds(2));
        long secondEpoch = state.nextEpoch("n1", System.currentTimeMillis());

        assertThat(killed).isEqualTo(1);
        await().atMost(Duration.ofSeconds(5)).until(() -> ProcessHandle.of(pid).map(p -> !p.isAlive()).orElse(true));
        JobExited exited = (JobExited) secondRun.jobEvents.get(0).payload();
        assertThat(secondRun.jobEvents.get(0).key()).isEqualTo("long");
        assertThat(exited.getExitCode()).isEqualTo(143);
        assertThat(exited.getStopped()).isTrue(); // fenced by Allot, not a failure of the job
        assertThat(secondEpoch).isGreaterThan(firstEpoch);
        assertThat(crashed.ledger("n1").entries()).isEmpty();
        // Usage still tiles across the restart: the second run's tile starts where the first run's report ended.
        // (The "crashed" agent still lives in this JVM and reports the exit itself too; a dead one would not.)
        assertThat(secondRun.usage).hasSize(1);
        assertThat(secondRun.usage.get(0).getIntervalStart()).isEqualTo(reportedUntil);
        assertThat(secondRun.usage).allSatisfy(u -> assertThat(u.getChargeMode()).isEqualTo(ChargeMode.UNALLOCATED));
    }
}
