package dev.allot.nodeagent.process;

import dev.allot.schemas.StartJob;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.ScheduledFuture;

/**
 * A replica's live process and what the agent tracks about it: either a process this agent started (its child,
 * the supervisor) or one it re-adopted after its own restart under the same epoch (no longer its child: the exit
 * status then comes from the supervisor's exit file).
 */
public final class RunningReplica {

    private final ReplicaKey key;
    private final StartJob command;
    /** The supervisor when this agent started it; null when re-adopted. */
    private final Process process;
    private final ProcessHandle handle;
    private final Instant startedAt;
    private final UsageMeter usage;
    private final Path checkpointDir;
    private final Path exitFile;
    /** What a stop signalled (the tree when it was signalled): the exit is reported once all of it is gone. */
    private final java.util.List<ProcessHandle> signalled = new java.util.concurrent.CopyOnWriteArrayList<>();
    private volatile FileTime lastCheckpointMarker;
    private FileTime emptyMarkerAt;
    private volatile boolean stopRequested;
    private volatile boolean stoppedByScheduler;
    private volatile boolean exited;
    private volatile ScheduledFuture<?> killTimer;
    private final java.util.concurrent.CompletableFuture<Void> exitReported = new java.util.concurrent.CompletableFuture<>();

    /**
     * SHA-256 of {@code ALLOT_JOB_TOKEN}, what this replica, and only it, shows to call back (checkpoint). Only the
     * hash is kept (and written to the process ledger, so a restarted agent still knows it).
     */
    private final byte[] jobTokenHash;

    public RunningReplica(ReplicaKey key, StartJob command, Process process, Instant startedAt, Path checkpointDir,
                          FileTime markerAtStart, Path exitFile, String jobToken) {
        this(key, command, process, process.toHandle(), startedAt, startedAt, checkpointDir, markerAtStart, exitFile,
                hash(jobToken));
    }

    private RunningReplica(ReplicaKey key, StartJob command, Process process, ProcessHandle handle, Instant startedAt,
                           Instant usageFrom, Path checkpointDir, FileTime markerAtStart, Path exitFile,
                           byte[] jobTokenHash) {
        this.jobTokenHash = jobTokenHash;
        this.exitFile = exitFile;
        this.key = key;
        this.command = command;
        this.process = process;
        this.handle = handle;
        this.startedAt = startedAt;
        this.usage = new UsageMeter(command.getGpuIndices().size(), usageFrom);
        this.checkpointDir = checkpointDir;
        this.lastCheckpointMarker = markerAtStart;
    }

    /**
     * A replica an earlier run of this agent started under the node's current epoch, still running: taken over.
     * Its usage continues from where the earlier run's reports stopped.
     */
    public static RunningReplica adopted(ReplicaKey key, StartJob command, ProcessHandle handle, Instant startedAt,
                                         Instant usageReportedUntil, Path checkpointDir, FileTime lastMarker,
                                         Path exitFile, String jobTokenHash) {
        return new RunningReplica(key, command, null, handle, startedAt, usageReportedUntil, checkpointDir, lastMarker,
                exitFile, java.util.Base64.getDecoder().decode(jobTokenHash));
    }

    /** Whether {@code token} is this replica's job token; in constant time (a guess learns nothing from timing). */
    public boolean tokenMatches(String token) {
        return token != null && java.security.MessageDigest.isEqual(jobTokenHash, hash(token));
    }

    /** The job token's hash as the process ledger keeps it. */
    public String tokenHash() {
        return java.util.Base64.getEncoder().encodeToString(jobTokenHash);
    }

    private static byte[] hash(String token) {
        try {
            return java.security.MessageDigest.getInstance("SHA-256")
                    .digest(token.getBytes(java.nio.charset.StandardCharsets.UTF_8));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** True when this run of the agent took the replica over from an earlier run. */
    public boolean adopted() {
        return process == null;
    }

    /** The supervisor's process. */
    public ProcessHandle handle() {
        return handle;
    }

    public long pid() {
        return handle.pid();
    }

    public boolean isAlive() {
        return handle.isAlive();
    }

    /** Completes when the supervisor has exited. */
    public java.util.concurrent.CompletableFuture<?> onExit() {
        return process != null ? process.onExit() : handle.onExit();
    }

    /**
     * The exit status: the supervisor's (its command's) for a child; for an adopted replica what the supervisor
     * recorded, or -1 (unknown) when it recorded nothing (it was killed outright).
     */
    public int exitCode() {
        if (process != null) {
            return process.exitValue();
        }
        return Supervisor.read(exitFile).map(Supervisor.Exit::code).orElse(-1);
    }

    /** The last checkpoint marker time seen (reported), for the ledger. */
    public FileTime lastCheckpointMarker() {
        return lastCheckpointMarker;
    }

    public ReplicaKey key() {
        return key;
    }

    public StartJob command() {
        return command;
    }

    public Instant startedAt() {
        return startedAt;
    }

    public UsageMeter usage() {
        return usage;
    }

    public Path checkpointDir() {
        return checkpointDir;
    }

    public Path checkpointMarker() {
        return checkpointDir.resolve("checkpoint");
    }

    /** The notice a stop writes before its SIGTERM ({@code ALLOT_PREEMPT_NOTICE_FILE}). */
    public Path noticeFile() {
        return noticeFile(checkpointDir);
    }

    public static Path noticeFile(Path checkpointDir) {
        return checkpointDir.resolve("preempt-notice");
    }

    /** Where the supervisor records the command's exit status. */
    public Path exitFile() {
        return exitFile;
    }

    /** True once the supervisor recorded that the command ended (by itself, if no stop signalled it yet). */
    public boolean commandEnded() {
        return java.nio.file.Files.exists(exitFile);
    }

    public void signalled(java.util.List<ProcessHandle> tree) {
        tree.forEach(p -> {
            if (!signalled.contains(p)) {
                signalled.add(p);
            }
        });
    }

    public java.util.List<ProcessHandle> signalled() {
        return java.util.List.copyOf(signalled);
    }

    /** True when the marker's modification time differs from the last one seen; remembers the new one. */
    public synchronized boolean markerChanged(FileTime current) {
        if (current == null || current.equals(lastCheckpointMarker)) {
            return false;
        }
        lastCheckpointMarker = current;
        return true;
    }

    /**
     * The marker changed but was still empty: {@code at} is remembered, and {@link #stillEmptyAt} tells
     * at the next look whether it stayed that way (a plain touch) or the job was writing the location.
     */
    public synchronized void markerEmptyAt(FileTime at) {
        emptyMarkerAt = at;
    }

    /** True, once, if the marker is unchanged since it was seen empty by {@link #markerEmptyAt}. */
    public synchronized boolean stillEmptyAt(FileTime current) {
        boolean same = emptyMarkerAt != null && emptyMarkerAt.equals(current);
        emptyMarkerAt = null;
        return same;
    }

    public boolean stopRequested() {
        return stopRequested;
    }

    /** True when a StopJob (not the agent's own shutdown) ended it: JobExited.stopped. */
    public boolean stoppedByScheduler() {
        return stoppedByScheduler;
    }

    /** Marks the replica as stopping; false when it already was. */
    public synchronized boolean markStopping(boolean byScheduler) {
        stoppedByScheduler |= byScheduler;
        if (stopRequested) {
            return false;
        }
        stopRequested = true;
        return true;
    }

    private volatile long stopDeadlineMillis;

    /** When the SIGKILL of a stop in progress is due (0: no stop), kept in the ledger across agent restarts. */
    public long stopDeadlineMillis() {
        return stopDeadlineMillis;
    }

    public void stopDeadline(long millis) {
        stopDeadlineMillis = millis;
    }

    public void killTimer(ScheduledFuture<?> timer) {
        this.killTimer = timer;
    }

    public boolean exited() {
        return exited;
    }

    public void markExited() {
        exited = true;
    }

    /** Completes once the exit (last usage tile and JobExited) has been handed to the producer. */
    public java.util.concurrent.CompletableFuture<Void> exitReported() {
        return exitReported;
    }

    public void cancelKillTimer() {
        ScheduledFuture<?> timer = killTimer;
        if (timer != null) {
            timer.cancel(false);
        }
    }

    /** The report of this run's start. */
    public dev.allot.schemas.JobStarted started() {
        return dev.allot.schemas.JobStarted.newBuilder().setNodeId(key().nodeId()).setNodeEpoch(command.getNodeEpoch())
                .setReplicaIndex(key().replicaIndex()).setPid(pid()).build();
    }

    /**
     * The event id of {@link #started()}, derived from the run (node, job, replica, epoch, pid, start time): an agent
     * that takes the replica over after a restart sends the start again under the same id, and consumers drop a copy.
     */
    public String startedEventId() {
        return java.util.UUID.nameUUIDFromBytes(String.join("/", key().nodeId(), key().jobId(),
                Integer.toString(key().replicaIndex()), Long.toString(command.getNodeEpoch()), Long.toString(pid()),
                Long.toString(startedAt().toEpochMilli())).getBytes(java.nio.charset.StandardCharsets.UTF_8)).toString();
    }

    /** The ledger's entry for this replica: what a restarted agent needs to fence it or take it over. */
    public ProcessLedger.Entry ledgerEntry() {
        long processStart = handle().info().startInstant().map(Instant::toEpochMilli).orElse(0L);
        FileTime marker = lastCheckpointMarker();
        return new ProcessLedger.Entry(key().jobId(), key().replicaIndex(), command.getNodeEpoch(),
                pid(), processStart, command.getGpuIndices().size(), command.getBudget(),
                command.getCluster(), command.getChargeMode().toString(), usage().reportedUntil(),
                new ProcessLedger.Resume(List.copyOf(command.getGpuIndices()), command.getReplicas(),
                        command.getRestartCount(), startedAt().toEpochMilli(), tokenHash(),
                        marker == null ? -1 : marker.toMillis(), stopDeadlineMillis(),
                        stoppedByScheduler()));
    }
}
