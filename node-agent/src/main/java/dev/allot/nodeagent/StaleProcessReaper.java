package dev.allot.nodeagent;

import dev.allot.nodeagent.process.ProcessLedger;
import dev.allot.nodeagent.process.ProcessTree;
import dev.allot.nodeagent.process.Supervisor;
import dev.allot.schemas.ChargeMode;
import dev.allot.schemas.JobExited;
import dev.allot.schemas.UsageReported;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.jboss.logging.Logger;

/**
 * Fences what an earlier run of the agent left behind, before the node registers under a new epoch.
 *
 * <p>The rule: every process in a node's ledger was started under an older epoch (the new one does not
 * exist yet), and the scheduler fences everything of an older epoch, so each is stale. A live one is
 * killed (SIGTERM to its tree, SIGKILL after the grace) and reported as {@code JobExited} with 128+signal and
 * {@code stopped=true} (Allot ended it, the job did not fail: the scheduler must not turn it into a verdict;
 * it has fenced or lost the node already); its GPU time since the last usage report is reported too, since it
 * did hold the GPUs. One that already ended while no agent watched ended by itself ({@code stopped=false}): its
 * {@link Supervisor} recorded the command's exit status and when it ended, so it is reported with its real
 * exit code and a last usage tile up to that end. Only when no status was recorded (a process of an agent
 * without supervisor, or a supervisor killed outright) is the exit code -1 (unknown), with no further usage.
 * A pid whose process start time differs from the ledger's is a recycled pid: never touched.
 */
public final class StaleProcessReaper {

    private static final Logger LOG = Logger.getLogger(StaleProcessReaper.class);
    public static final int EXIT_UNKNOWN = -1;

    private final AgentReports reports;
    private final AgentMetrics metrics;
    private final Clock clock;

    public StaleProcessReaper(AgentReports reports, AgentMetrics metrics, Clock clock) {
        this.reports = reports;
        this.metrics = metrics;
        this.clock = clock;
    }

    private record Stale(String nodeId, ProcessLedger ledger, ProcessLedger.Entry entry, Optional<ProcessHandle> live) {
    }

    /** A live process of an earlier run under an epoch the node keeps: to be taken over, not fenced. */
    public record Adoptable(String nodeId, ProcessLedger.Entry entry, ProcessHandle process) {
    }

    /** What a restart found: how many stale processes it killed, and the live ones it may take over. */
    public record Outcome(int killed, List<Adoptable> adoptable) {
    }

    /** Kills and reports every process in the ledgers; returns how many were still alive. */
    public int reap(List<String> nodeIds, java.util.function.Function<String, ProcessLedger> ledgers, Duration grace) {
        return reap(nodeIds, ledgers, grace, nodeId -> java.util.OptionalLong.empty()).killed();
    }

    /**
     * As {@link #reap(List, java.util.function.Function, Duration)}, except for the nodes that keep their epoch
     * ({@code keptEpoch}: the agent restarted soon enough that the scheduler still holds them): their live
     * processes under that epoch are neither killed nor reported but returned, to be taken over. Their ended ones
     * are reported as any other (the real exit status, {@code stopped=false}).
     */
    public Outcome reap(List<String> nodeIds, java.util.function.Function<String, ProcessLedger> ledgers, Duration grace,
                        java.util.function.Function<String, java.util.OptionalLong> keptEpoch) {
        List<Stale> stale = new ArrayList<>();
        List<Adoptable> adoptable = new ArrayList<>();
        java.util.Set<Long> ledgerPids = new java.util.HashSet<>();
        List<java.nio.file.Path> ledgerDirs = new ArrayList<>();
        for (String nodeId : nodeIds) {
            ProcessLedger ledger = ledgers.apply(nodeId);
            ledgerDirs.add(ledger.dir().toAbsolutePath().normalize());
            java.util.OptionalLong kept = keptEpoch.apply(nodeId);
            for (ProcessLedger.Entry entry : ledger.entries()) {
                ledgerPids.add(entry.pid());
                Optional<ProcessHandle> live = sameProcess(entry);
                if (live.isPresent() && kept.isPresent() && kept.getAsLong() == entry.nodeEpoch()
                        && entry.resume() != null) {
                    adoptable.add(new Adoptable(nodeId, entry, live.get()));
                } else {
                    stale.add(new Stale(nodeId, ledger, entry, live));
                }
            }
        }
        List<Orphan> orphans = orphans(ledgerPids, ledgerDirs);
        orphans.forEach(o -> ProcessTree.terminate(o.supervisor()));
        stale.stream().flatMap(s -> s.live().stream()).forEach(ProcessTree::terminate);
        long deadline = System.nanoTime() + grace.toNanos();
        int killed = 0;
        for (Stale s : stale) {
            int exitCode = EXIT_UNKNOWN;
            Instant exitedAt = Instant.ofEpochMilli(clock.millis());
            java.nio.file.Path exitFile = s.ledger().exitFile(s.entry().jobId(), s.entry().replicaIndex());
            if (s.live().isPresent()) {
                ProcessHandle process = s.live().get();
                exitCode = endedByTerm(process, deadline) ? 128 + 15 : 128 + 9;
                killed++;
                metrics.staleProcessesKilled.increment();
                // The supervisor may have outlived the kill long enough to record the real status.
                exitCode = Supervisor.read(exitFile).map(Supervisor.Exit::code).orElse(exitCode);
                exitedAt = Instant.ofEpochMilli(clock.millis());
                reportUsage(s.nodeId(), s.entry(), exitedAt);
                LOG.warnf("killed stale process %d of %s.r%d on %s (epoch %d)", s.entry().pid(), s.entry().jobId(),
                        s.entry().replicaIndex(), s.nodeId(), s.entry().nodeEpoch());
            } else {
                Optional<Supervisor.Exit> recorded = Supervisor.read(exitFile);
                if (recorded.isPresent()) {
                    exitCode = recorded.get().code();
                    // Its end is known: the GPUs were held until then (not past now, whatever the file's clock).
                    exitedAt = recorded.get().at().isAfter(exitedAt) ? exitedAt : recorded.get().at();
                    reportUsage(s.nodeId(), s.entry(), exitedAt);
                }
                LOG.warnf("process %d of %s.r%d on %s ended while no agent watched, exit code %s", s.entry().pid(),
                        s.entry().jobId(), s.entry().replicaIndex(), s.nodeId(),
                        recorded.isPresent() ? Integer.toString(exitCode) : "unknown");
            }
            reports.jobEvent(s.entry().jobId(), JobExited.newBuilder()
                    .setNodeId(s.nodeId())
                    .setReplicaIndex(s.entry().replicaIndex())
                    .setExitCode(exitCode)
                    // a process killed here, or one that ended after a stop had signalled it, was ended by Allot
                    .setStopped(s.live().isPresent()
                            || (s.entry().resume() != null && s.entry().resume().stopDeadlineMillis() > 0))
                    .build(), exitedAt);
            s.ledger().forget(s.entry().jobId(), s.entry().replicaIndex());
        }
        for (Orphan orphan : orphans) {
            endedByTerm(orphan.supervisor(), deadline);
            try {
                java.nio.file.Files.deleteIfExists(orphan.exitFile()); // not to be read as a later run's status
            } catch (java.io.IOException e) {
                LOG.debugf("could not delete %s: %s", orphan.exitFile(), e.toString());
            }
            LOG.warnf("killed process %d, a job's supervisor that no ledger names (its agent died before recording"
                    + " it; its start was never reported, its StartJob is read again)", orphan.supervisor().pid());
        }
        reports.flush();
        return new Outcome(killed, List.copyOf(adoptable));
    }

    /**
     * Supervisors started for these nodes that no ledger entry names: the agent died between the spawn and the
     * ledger write. Their start was never reported and the command position never passed their StartJob (nor did
     * a held start's file go), so the job is started again; left running, the orphan would share its GPUs. Known
     * by their argv: the supervisor's exit file lies in the node's ledger directory.
     */
    private static List<Orphan> orphans(java.util.Set<Long> known, List<java.nio.file.Path> dirs) {
        List<Orphan> orphans = new ArrayList<>();
        ProcessHandle.allProcesses().filter(p -> !known.contains(p.pid())).forEach(p -> {
            List<String> args = List.of(p.info().arguments().orElse(new String[0]));
            int at = args.indexOf(dev.allot.nodeagent.process.Supervisor.NAME);
            if (at >= 0 && at + 1 < args.size() && args.get(at + 1).endsWith(".exit")) {
                java.nio.file.Path exitFile = java.nio.file.Path.of(args.get(at + 1)).toAbsolutePath().normalize();
                if (dirs.contains(exitFile.getParent())) {
                    orphans.add(new Orphan(p, exitFile));
                }
            }
        });
        return orphans;
    }

    private record Orphan(ProcessHandle supervisor, java.nio.file.Path exitFile) {
    }

    private void reportUsage(String nodeId, ProcessLedger.Entry entry, Instant end) {
        if (!end.isAfter(entry.usageReportedUntil())) {
            return;
        }
        long millis = end.toEpochMilli() - entry.usageReportedUntil().toEpochMilli();
        reports.usage(UsageReported.newBuilder()
                .setJobId(entry.jobId())
                .setAccount(entry.account())
                .setCluster(entry.cluster())
                .setNodeId(nodeId)
                .setGpus(entry.gpus())
                .setIntervalStart(entry.usageReportedUntil())
                .setIntervalEnd(end)
                .setGpuSeconds(entry.gpus() * millis / 1000.0)
                .setChargeMode(ChargeMode.valueOf(entry.chargeMode()))
                .setMeanGpuUtilisation(null)
                .build());
    }

    /** The live process the entry names, if the pid still belongs to it (same start time). */
    static Optional<ProcessHandle> sameProcess(ProcessLedger.Entry entry) {
        return ProcessHandle.of(entry.pid())
                .filter(ProcessHandle::isAlive)
                .filter(handle -> handle.info().startInstant()
                        .map(start -> entry.processStartMillis() == 0
                                || Math.abs(start.toEpochMilli() - entry.processStartMillis()) < 2_000)
                        .orElse(false));
    }

    /**
     * Waits until {@code deadlineNanos} for a process already sent SIGTERM to end, then SIGKILLs its tree and waits
     * 5 s more. True when the SIGTERM sufficed.
     */
    private static boolean endedByTerm(ProcessHandle process, long deadlineNanos) {
        if (awaitExit(process, deadlineNanos)) {
            return true;
        }
        ProcessTree.kill(process);
        awaitExit(process, System.nanoTime() + TimeUnit.SECONDS.toNanos(5));
        return false;
    }

    private static boolean awaitExit(ProcessHandle process, long deadlineNanos) {
        try {
            long wait = Math.max(0, deadlineNanos - System.nanoTime());
            process.onExit().get(wait, TimeUnit.NANOSECONDS);
            return true;
        } catch (java.util.concurrent.TimeoutException e) {
            return !process.isAlive();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return !process.isAlive();
        } catch (java.util.concurrent.ExecutionException e) {
            return !process.isAlive();
        }
    }
}
