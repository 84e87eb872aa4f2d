package dev.allot.nodeagent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.nodeagent.process.ProcessLedger;
import dev.allot.schemas.JobExited;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Real processes, as an earlier agent run would have left them; reports in memory. */
class StaleProcessReaperTest {

    private final List<Process> started = new java.util.ArrayList<>();

    @AfterEach
    void killLeftovers() {
        started.forEach(Process::destroyForcibly);
    }

    @Test
    void givenProcessesOfAnEarlierRun_whenReaped_thenKilledReportedAndForgotten(@TempDir Path dir) throws Exception {
        StateDir state = new StateDir(dir);
        ProcessLedger ledger = new ProcessLedger(state.processesDir("n1"));
        Process polite = spawn("sleep", "600");
        Path trapped = dir.resolve("trapped");
        Process stubborn = spawn("sh", "-c", "trap '' TERM; touch '" + trapped + "'; while true; do sleep 0.1; done");
        // Reap only once the shell ignores TERM, or TERM alone would end it (143, not the 137 checked below).
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> java.nio.file.Files.exists(trapped));
        Instant reportedUntil = Instant.now().minusSeconds(10).truncatedTo(java.time.temporal.ChronoUnit.MILLIS);
        ledger.record(entry("polite", polite.pid(), start(polite), reportedUntil));
        ledger.record(entry("stubborn", stubborn.pid(), start(stubborn), reportedUntil));
        ledger.record(entry("gone", 999_999_999L, 1L, reportedUntil));
        RecordingReports reports = new RecordingReports();
        StaleProcessReaper reaper = new StaleProcessReaper(reports, new AgentMetrics(new SimpleMeterRegistry()),
                Clock.systemUTC());

        long began = System.nanoTime();
        int killed = reaper.reap(List.of("n1"), id -> ledger, Duration.ofSeconds(1));
        Duration took = Duration.ofNanos(System.nanoTime() - began);

        assertThat(killed).isEqualTo(2);
        assertThat(polite.isAlive()).isFalse();
        assertThat(stubborn.isAlive()).isFalse();
        assertThat(took).isLessThan(Duration.ofSeconds(8));
        Map<String, Integer> exitCodes = reports.jobEvents.stream().collect(Collectors.toMap(
                RecordingReports.Report::key, r -> ((JobExited) r.payload()).getExitCode()));
        assertThat(exitCodes).containsEntry("polite", 143).containsEntry("stubborn", 137)
                .containsEntry("gone", StaleProcessReaper.EXIT_UNKNOWN);
        Map<String, Boolean> stopped = reports.jobEvents.stream().collect(Collectors.toMap(
                RecordingReports.Report::key, r -> ((JobExited) r.payload()).getStopped()));
        assertThat(stopped).containsEntry("polite", true).containsEntry("stubborn", true).containsEntry("gone", false);
        // The GPU time the stale processes held since the last report is reported once, from where it stopped.
        assertThat(reports.usage).extracting(u -> u.getJobId()).containsExactlyInAnyOrder("polite", "stubborn");
        assertThat(reports.usage).allSatisfy(u -> {
            assertThat(u.getIntervalStart()).isEqualTo(reportedUntil);
            assertThat(u.getGpuSeconds()).isCloseTo(2 * (u.getIntervalEnd().toEpochMilli()
                    - reportedUntil.toEpochMilli()) / 1000.0, org.assertj.core.data.Offset.offset(1e-6));
        });
        assertThat(ledger.entries()).isEmpty();
    }

    @Test
    void givenRecycledPid_whenReaped_thenTheUnrelatedProcessIsLeftAlone(@TempDir Path dir) throws Exception {
        ProcessLedger ledger = new ProcessLedger(new StateDir(dir).processesDir("n1"));
        Process unrelated = spawn("sleep", "600");
        ledger.record(entry("old", unrelated.pid(), start(unrelated) - 3_600_000, Instant.now()));
        RecordingReports reports = new RecordingReports();

        new StaleProcessReaper(reports, new AgentMetrics(new SimpleMeterRegistry()), Clock.systemUTC())
                .reap(List.of("n1"), Function.<String>identity().andThen(id -> ledger), Duration.ofSeconds(1));

        assertThat(unrelated.isAlive()).isTrue();
        assertThat(((JobExited) reports.jobEvents.get(0).payload()).getExitCode()).isEqualTo(StaleProcessReaper.EXIT_UNKNOWN);
    }

    @Test
    void givenASupervisorNoLedgerNames_whenReaped_thenItIsKilledUnreportedAndOtherNodesSupervisorsAreLeftAlone(
            @TempDir Path dir) throws Exception {
        StateDir state = new StateDir(dir);
        ProcessLedger ledger = new ProcessLedger(state.processesDir("n1"));
        ProcessLedger otherNode = new ProcessLedger(state.processesDir("n2"));
        // the agent died between the spawn and the ledger write: a supervisor of n1 that no entry names
        Process orphan = spawn(dev.allot.nodeagent.process.Supervisor.wrap(List.of("sleep", "600"),
                ledger.exitFile("orphan", 0)).toArray(String[]::new));
        Process elsewhere = spawn(dev.allot.nodeagent.process.Supervisor.wrap(List.of("sleep", "600"),
                otherNode.exitFile("other", 0)).toArray(String[]::new));
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10))
                .until(() -> orphan.descendants().findAny().isPresent() && elsewhere.descendants().findAny().isPresent());
        List<ProcessHandle> orphanTree = dev.allot.nodeagent.process.ProcessTree.snapshot(orphan.toHandle());
        RecordingReports reports = new RecordingReports();

        int killed = new StaleProcessReaper(reports, new AgentMetrics(new SimpleMeterRegistry()), Clock.systemUTC())
                .reap(List.of("n1"), id -> ledger, Duration.ofSeconds(2));

        assertThat(orphan.waitFor(10, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10))
                .until(() -> orphanTree.stream().noneMatch(ProcessHandle::isAlive));
        assertThat(killed).as("counts the ledger's processes only").isZero();
        assertThat(reports.jobEvents).as("its start was never reported: nothing to report").isEmpty();
        assertThat(ledger.exitFile("orphan", 0)).doesNotExist();
        assertThat(elsewhere.isAlive()).as("n2 is not reaped here").isTrue();
    }

    private Process spawn(String... argv) throws Exception {
        Process process = new ProcessBuilder(argv).start();
        started.add(process);
        return process;
    }

    private static long start(Process process) {
        return process.toHandle().info().startInstant().orElseThrow().toEpochMilli();
    }

    private static ProcessLedger.Entry entry(String jobId, long pid, long startMillis, Instant reportedUntil) {
        return new ProcessLedger.Entry(jobId, 0, 1L, pid, startMillis, 2, "lab/team-a", "test", "ALLOCATED",
                reportedUntil);
    }
}
