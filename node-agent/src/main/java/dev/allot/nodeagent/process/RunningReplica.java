package dev.allot.nodeagent.process;

import dev.allot.schemas.StartJob;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.concurrent.ScheduledFuture;

/** A replica's live process and what the agent tracks about it. */
public final class RunningReplica {

    private final ReplicaKey key;
    private final StartJob command;
    private final Process process;
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

    /** {@code ALLOT_JOB_TOKEN}: what this replica, and only it, shows to call back (checkpoint). */
    private final byte[] jobToken;

    public RunningReplica(ReplicaKey key, StartJob command, Process process, Instant startedAt, Path checkpointDir,
                          FileTime markerAtStart, Path exitFile, String jobToken) {
        this.jobToken = jobToken.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        this.exitFile = exitFile;
        this.key = key;
        this.command = command;
        this.process = process;
        this.startedAt = startedAt;
        this.usage = new UsageMeter(command.getGpuIndices().size(), startedAt);
        this.checkpointDir = checkpointDir;
        this.lastCheckpointMarker = markerAtStart;
    }

    /** Whether {@code token} is this replica's job token; in constant time (a guess learns nothing from timing). */
    public boolean tokenMatches(String token) {
        return token != null
                && java.security.MessageDigest.isEqual(jobToken, token.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    public ReplicaKey key() {
        return key;
    }

    public StartJob command() {
        return command;
    }

    public Process process() {
        return process;
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
}
