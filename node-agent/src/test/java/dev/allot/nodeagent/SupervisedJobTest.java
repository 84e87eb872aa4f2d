package dev.allot.nodeagent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.allot.nodeagent.gpu.FakeGpuBackend;
import dev.allot.nodeagent.process.ProcessLedger;
import dev.allot.schemas.ChargeMode;
import dev.allot.schemas.DeadLetter;
import dev.allot.schemas.JobExited;
import dev.allot.schemas.JobStarted;
import dev.allot.schemas.NodeCommand;
import dev.allot.schemas.StartJob;
import dev.allot.schemas.StopJob;
import dev.allot.schemas.StopReason;
import dev.allot.schemas.UsageReported;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the per-replica supervisor gives: a job's real exit status survives the agent being killed, and a GPU
 * is handed to the next job only once its previous holder has exited. Real processes (and, for the crash,
 * a real agent JVM killed with SIGKILL); reports in memory.
 */
class SupervisedJobTest {

    private static final Duration WAIT = Duration.ofSeconds(20);
    private final ScheduledExecutorService timers = Executors.newScheduledThreadPool(2);
    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    private Process crashingAgent;

    @AfterEach
    void cleanUp() {
        timers.shutdownNow();
        if (crashingAgent != null) {
            crashingAgent.destroyForcibly();
        }
    }

    @Test
    void givenAgentKilledWhileItsJobsRan_whenTheyEndAndTheAgentRestarts_thenTheirRealExitCodesAreReported(
            @TempDir Path dir) throws Exception {
        StateDir state = new StateDir(dir.resolve("state"));
        long epoch = state.nextEpoch("n1", System.currentTimeMillis());
        Path go = dir.resolve("go");
        String waitForGo = "while [ ! -e '" + go + "' ]; do sleep 0.05; done; ";
        crashingAgent = new ProcessBuilder(javaBinary(), "-cp", System.getProperty("java.class.path"),
                CrashingAgentMain.class.getName(), state.root().toString(), Long.toString(epoch),
                "done=" + waitForGo + "exit 0", "failed=" + waitForGo + "exit 3", "still=sleep 600")
                .redirectErrorStream(true).start();
        Map<String, Long> pids = startedJobs(crashingAgent);
        assertThat(pids).containsOnlyKeys("done", "failed", "still");

        // given: the agent dies for real, without a word; then two of its jobs end while no agent watches
        crashingAgent.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        Instant goAt = Instant.now();
        Files.createFile(go);
        await().atMost(WAIT).until(() -> !ProcessHandle.of(pids.get("done")).map(ProcessHandle::isAlive).orElse(false)
                && !ProcessHandle.of(pids.get("failed")).map(ProcessHandle::isAlive).orElse(false));

        // when: the next run fences what the ledger holds, before it registers
        RecordingReports secondRun = new RecordingReports();
        int killed = new StaleProcessReaper(secondRun, new AgentMetrics(meters), Clock.systemUTC())
                .reap(List.of("n1"), id -> new ProcessLedger(state.processesDir(id)), Duration.ofSeconds(2));
        Instant reapedAt = Instant.now();

        // then: the ones that ended report their own status; the one still running is fenced
        assertThat(killed).isEqualTo(1);
        assertThat(exitOf(secondRun, "done")).satisfies(e -> {
            assertThat(e.getExitCode()).isZero();
            assertThat(e.getStopped()).isFalse(); // ended by itself: a verdict, COMPLETED
        });
        assertThat(exitOf(secondRun, "failed")).satisfies(e -> {
            assertThat(e.getExitCode()).isEqualTo(3);
            assertThat(e.getStopped()).isFalse();
        });
        assertThat(exitOf(secondRun, "still")).satisfies(e -> {
            assertThat(e.getExitCode()).isEqualTo(143);
            assertThat(e.getStopped()).isTrue();
        });
        // The GPU time of the job that ended is reported up to its end (not lost, not up to the restart).
        UsageReported last = secondRun.usage.stream().filter(u -> u.getJobId().equals("done")).findFirst().orElseThrow();
        assertThat(last.getIntervalEnd()).isAfterOrEqualTo(goAt.minusMillis(50)).isBefore(reapedAt);
        assertThat(last.getGpuSeconds()).isCloseTo(
                (last.getIntervalEnd().toEpochMilli() - last.getIntervalStart().toEpochMilli()) / 1000.0,
                org.assertj.core.data.Offset.offset(1e-9));
        assertThat(new ProcessLedger(state.processesDir("n1")).entries()).isEmpty();
        try (var left = Files.list(state.processesDir("n1"))) {
            assertThat(left).isEmpty(); // exit files too
        }
        assertThat(ProcessHandle.of(pids.get("still")).map(ProcessHandle::isAlive).orElse(false)).isFalse();
    }

    @Test
    void givenAStoppingJobThatIgnoresSigtermAMoment_whenTheNextJobIsStartedOnItsGpus_thenItStartsOnlyAfterTheExit(
            @TempDir Path dir) throws Exception {
        Map<String, Boolean> victimAliveWhenStarted = new ConcurrentHashMap<>();
        Path victimPidFile = dir.resolve("victim.pid");
        RecordingReports recorded = new RecordingReports();
        AgentReports reports = new CheckingReports(recorded, (jobId, payload) -> {
            if (payload instanceof JobStarted && jobId.equals("preemptor")) {
                long victimPid = Long.parseLong(read(victimPidFile));
                victimAliveWhenStarted.put(jobId, ProcessHandle.of(victimPid).map(ProcessHandle::isAlive).orElse(false));
            }
        });
        StateDir state = new StateDir(dir.resolve("state"));
        long epoch = state.nextEpoch("n1", System.currentTimeMillis());
        NodeAgent agent = new NodeAgent(List.of(new HostedNode("n1", "test", new FakeGpuBackend(4), epoch)), state,
                reports, new AgentMetrics(meters), Clock.systemUTC(), timers, "test");
        // The victim takes half a second after its SIGTERM to let go (a checkpoint being written, say).
        // (its pid written once its trap is set: the stop below then surely takes the trap's half second)
        assertThat(agent.handle(start("victim", epoch, List.of(0, 1), "trap 'sleep 0.5; exit 0' TERM; echo $$ > '"
                + victimPidFile + "'; while true; do sleep 0.05; done"))).isEqualTo(NodeAgent.Outcome.STARTED);
        await().atMost(WAIT).until(() -> !read(victimPidFile).isBlank());

        // when: the scheduler preempts it and gives one of its GPUs to the next job at once
        assertThat(agent.handle(stop("victim", epoch, 10))).isEqualTo(NodeAgent.Outcome.STOPPING);
        NodeAgent.Outcome preemptor = agent.handle(start("preemptor", epoch, List.of(1, 2), "sleep 0.1"));
        NodeAgent.Outcome bystander = agent.handle(start("bystander", epoch, List.of(3), "true"));
        NodeAgent.Outcome neverRuns = agent.handle(start("never-runs", epoch, List.of(0), "true"));
        NodeAgent.Outcome dropped = agent.handle(stop("never-runs", epoch, 10));

        // then: the next job waits for the victim's exit; other GPUs are not held up
        assertThat(preemptor).isEqualTo(NodeAgent.Outcome.HELD);
        assertThat(bystander).isEqualTo(NodeAgent.Outcome.STARTED);
        assertThat(neverRuns).isEqualTo(NodeAgent.Outcome.HELD);
        assertThat(dropped).isEqualTo(NodeAgent.Outcome.STOPPING);
        await().atMost(WAIT).until(() -> recorded.jobEvents.stream()
                .anyMatch(r -> r.key().equals("preemptor") && r.payload() instanceof JobExited));
        assertThat(victimAliveWhenStarted).containsEntry("preemptor", false);
        int victimExit = indexOf(recorded, "victim", JobExited.class);
        int preemptorStart = indexOf(recorded, "preemptor", JobStarted.class);
        assertThat(victimExit).isLessThan(preemptorStart);
        // checkable from the reports alone: the new holder's start is not before the old holder's exit
        assertThat(recorded.jobEvents.get(preemptorStart).occurredAt())
                .isAfterOrEqualTo(recorded.jobEvents.get(victimExit).occurredAt());
        assertThat((JobExited) recorded.jobEvents.get(victimExit).payload()).satisfies(e -> {
            assertThat(e.getExitCode()).isZero(); // it let go by itself within its grace
            assertThat(e.getStopped()).isTrue();
        });
        assertThat(recorded.jobEvents).noneMatch(r -> r.key().equals("never-runs"));
    }

    @Test
    void givenARunBeingStopped_whenTheSameReplicasNextRunArrives_thenItIsHeldUntilTheExitThenStarted(@TempDir Path dir)
            throws Exception {
        // chaos run, 2026-12-06: placed while its agent was down, preempted, placed again on the same node; the
        // restarted agent read start, stop, start at once, took the second start for a duplicate of the first
        // (still stopping) and dropped it: the job stayed RUNNING with no process.
        RecordingReports recorded = new RecordingReports();
        StateDir state = new StateDir(dir.resolve("state"));
        long epoch = state.nextEpoch("n1", System.currentTimeMillis());
        NodeAgent agent = new NodeAgent(List.of(new HostedNode("n1", "test", new FakeGpuBackend(8), epoch)), state,
                recorded, new AgentMetrics(meters), Clock.systemUTC(), timers, "test");
        Path trapSet = dir.resolve("trap-set");
        NodeCommand first = start("job", epoch, List.of(3, 4),
                "trap 'sleep 0.3; exit 0' TERM; touch '" + trapSet + "'; while true; do sleep 0.05; done");
        assertThat(agent.handle(first)).isEqualTo(NodeAgent.Outcome.STARTED);
        // stopped once its trap is set: the stop then takes the trap's 0.3 s (stopped before its command even
        // started, it would end at once, and the next run would not be held)
        await().atMost(WAIT).until(() -> java.nio.file.Files.exists(trapSet));
        assertThat(agent.handle(stop("job", epoch, 10))).isEqualTo(NodeAgent.Outcome.STOPPING);

        NodeAgent.Outcome again = agent.handle(first); // the first run's start redelivered: a duplicate
        NodeAgent.Outcome next = agent.handle(start("job", epoch, List.of(0, 7), List.of("sh", "-c", "exit 0"), 1));

        assertThat(again).isEqualTo(NodeAgent.Outcome.DUPLICATE);
        assertThat(next).isEqualTo(NodeAgent.Outcome.HELD);
        await().atMost(WAIT).until(() -> recorded.jobEvents.stream()
                .filter(r -> r.key().equals("job") && r.payload() instanceof JobExited).count() == 2);
        List<Object> events = recorded.jobEvents.stream().filter(r -> r.key().equals("job"))
                .map(r -> (Object) r.payload()).toList();
        assertThat(events).hasSize(4);
        assertThat(events.get(0)).isInstanceOf(JobStarted.class);
        assertThat(events.get(1)).isInstanceOfSatisfying(JobExited.class, e -> assertThat(e.getStopped()).isTrue());
        assertThat(events.get(2)).isInstanceOfSatisfying(JobStarted.class,
                s -> assertThat(s.getPid()).isNotEqualTo(((JobStarted) events.get(0)).getPid()));
        assertThat(events.get(3)).isInstanceOfSatisfying(JobExited.class, e -> {
            assertThat(e.getExitCode()).isZero();
            assertThat(e.getStopped()).isFalse(); // the next run's own verdict
        });
    }

    @Test
    void givenAJobThatAlreadyEnded_whenItsStopArrives_thenItsExitIsItsOwn(@TempDir Path dir) {
        RecordingReports recorded = new RecordingReports();
        StateDir state = new StateDir(dir);
        long epoch = state.nextEpoch("n1", System.currentTimeMillis());
        NodeAgent agent = new NodeAgent(List.of(new HostedNode("n1", "test", new FakeGpuBackend(2), epoch)), state,
                recorded, new AgentMetrics(meters), Clock.systemUTC(), timers, "test");
        agent.handle(start("quick", epoch, List.of(0), "exit 0"));
        await().atMost(WAIT).until(() -> recorded.jobEvents.stream().anyMatch(r -> r.payload() instanceof JobExited));

        assertThat(agent.handle(stop("quick", epoch, 10))).isEqualTo(NodeAgent.Outcome.UNKNOWN_JOB);

        assertThat(recorded.jobEvents).filteredOn(r -> r.payload() instanceof JobExited).singleElement()
                .satisfies(r -> {
                    assertThat(((JobExited) r.payload()).getExitCode()).isZero();
                    assertThat(((JobExited) r.payload()).getStopped()).isFalse();
                });
    }

    @Test
    void givenACommandThatDoesNotExist_whenStarted_thenExit127WithoutJobStarted(@TempDir Path dir) {
        RecordingReports recorded = new RecordingReports();
        StateDir state = new StateDir(dir);
        long epoch = state.nextEpoch("n1", System.currentTimeMillis());
        NodeAgent agent = new NodeAgent(List.of(new HostedNode("n1", "test", new FakeGpuBackend(2), epoch)), state,
                recorded, new AgentMetrics(meters), Clock.systemUTC(), timers, "test");
        NodeCommand command = start("missing", epoch, List.of(0), List.of("no-such-program-" + UUID.randomUUID()));

        assertThat(agent.handle(command)).isEqualTo(NodeAgent.Outcome.FAILED_TO_START);
        assertThat(recorded.jobEvents).singleElement()
                .satisfies(r -> assertThat(((JobExited) r.payload()).getExitCode()).isEqualTo(127));
    }

    @Test
    void givenTheStartCannotBeReported_whenTheJobEnds_thenItsExitIsStillReported(@TempDir Path dir) {
        // the report of the start refused, as a serializer whose registry never answers refuses it in the end
        RecordingReports recorded = new RecordingReports();
        AgentReports refusingStarts = new CheckingReports(recorded, (jobId, payload) -> {
            if (payload instanceof JobStarted) {
                throw new org.apache.kafka.common.errors.SerializationException("the registry did not answer");
            }
        });
        StateDir state = new StateDir(dir);
        long epoch = state.nextEpoch("n1", System.currentTimeMillis());
        NodeAgent agent = new NodeAgent(List.of(new HostedNode("n1", "test", new FakeGpuBackend(2), epoch)), state,
                refusingStarts, new AgentMetrics(meters), Clock.systemUTC(), timers, "test");

        assertThat(agent.handle(start("unreported", epoch, List.of(0), "exit 3"))).isEqualTo(NodeAgent.Outcome.STARTED);

        await().atMost(WAIT).until(() -> recorded.jobEvents.stream().anyMatch(r -> r.payload() instanceof JobExited));
        assertThat(recorded.jobEvents).singleElement()
                .satisfies(r -> assertThat(((JobExited) r.payload()).getExitCode()).isEqualTo(3));
        // and the GPU is free for the next job: it starts at once instead of being held
        assertThat(agent.handle(start("next", epoch, List.of(0), "exit 0"))).isEqualTo(NodeAgent.Outcome.STARTED);
    }

    // --- helpers -------------------------------------------------------------------------------------------

    /** Reports recorded, with a look at the world at the moment each job event is reported. */
    private record CheckingReports(RecordingReports recorded, java.util.function.BiConsumer<String, Object> onJobEvent)
            implements AgentReports {
        @Override
        public void nodeStatus(String nodeId, Object payload, Instant occurredAt) {
            recorded.nodeStatus(nodeId, payload, occurredAt);
        }

        @Override
        public void jobEvent(String eventId, String jobId, Object payload, Instant occurredAt) {
            onJobEvent.accept(jobId, payload);
            recorded.jobEvent(eventId, jobId, payload, occurredAt);
        }

        @Override
        public void usage(UsageReported usage) {
            recorded.usage(usage);
        }

        @Override
        public void deadLetter(DeadLetter deadLetter) {
            recorded.deadLetter(deadLetter);
        }

        @Override
        public void flush() {
        }
    }

    private static Map<String, Long> startedJobs(Process agent) throws Exception {
        BufferedReader out = new BufferedReader(new InputStreamReader(agent.getInputStream(), StandardCharsets.UTF_8));
        return CompletableFuture.supplyAsync(() -> {
            Map<String, Long> pids = new HashMap<>();
            try {
                for (String line = out.readLine(); line != null && !line.equals("ready"); line = out.readLine()) {
                    if (line.startsWith("started ")) {
                        String[] parts = line.split(" ");
                        pids.put(parts[1], Long.parseLong(parts[2]));
                    }
                }
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
            return pids;
        }).get(60, TimeUnit.SECONDS);
    }

    private static String javaBinary() {
        return ProcessHandle.current().info().command().orElse(Path.of(System.getProperty("java.home"), "bin", "java")
                .toString());
    }

    private static JobExited exitOf(RecordingReports reports, String jobId) {
        return reports.jobEvents.stream().filter(r -> r.key().equals(jobId) && r.payload() instanceof JobExited)
                .map(r -> (JobExited) r.payload()).findFirst().orElseThrow(() -> new AssertionError("no exit of " + jobId));
    }

    private static int indexOf(RecordingReports reports, String jobId, Class<?> type) {
        for (int i = 0; i < reports.jobEvents.size(); i++) {
            if (reports.jobEvents.get(i).key().equals(jobId) && type.isInstance(reports.jobEvents.get(i).payload())) {
                return i;
            }
        }
        throw new AssertionError("no " + type.getSimpleName() + " of " + jobId);
    }

    private static String read(Path file) {
        try {
            return Files.exists(file) ? Files.readString(file).strip() : "";
        } catch (java.io.IOException e) {
            return "";
        }
    }

    private static NodeCommand start(String jobId, long epoch, List<Integer> gpus, String script) {
        return start(jobId, epoch, gpus, List.of("sh", "-c", script));
    }

    private static NodeCommand start(String jobId, long epoch, List<Integer> gpus, List<String> argv) {
        return start(jobId, epoch, gpus, argv, 0);
    }

    private static NodeCommand start(String jobId, long epoch, List<Integer> gpus, List<String> argv, int restart) {
        return NodeCommand.newBuilder().setEventId(UUID.randomUUID().toString()).setOccurredAt(Instant.now())
                .setPayload(StartJob.newBuilder().setJobId(jobId).setNodeId("n1").setNodeEpoch(epoch)
                        .setReplicaIndex(0).setReplicas(1).setGpuIndices(gpus)
                        .setCommand(argv).setEnv(Map.of()).setRestartCount(restart)
                        .setBudget("lab/team-a").setCluster("test").setChargeMode(ChargeMode.ALLOCATED).build())
                .build();
    }

    private static NodeCommand stop(String jobId, long epoch, int graceSeconds) {
        return NodeCommand.newBuilder().setEventId(UUID.randomUUID().toString()).setOccurredAt(Instant.now())
                .setPayload(StopJob.newBuilder().setJobId(jobId).setNodeId("n1").setNodeEpoch(epoch)
                        .setReason(StopReason.PREEMPTED).setGracePeriodSeconds(graceSeconds).build())
                .build();
    }
}
