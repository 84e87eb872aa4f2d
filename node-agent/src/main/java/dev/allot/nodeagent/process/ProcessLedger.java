package dev.allot.nodeagent.process;

import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

/**
 * The processes one node's agent started, on disk, so that a restarted agent can find and fence them.
 * One small properties file per replica, written at start (and when usage is reported), removed at exit,
 * and beside it the exit file its {@link Supervisor} writes when the command ends.
 */
public final class ProcessLedger {

    /**
     * What is remembered of a replica's process. {@code processStartMillis} guards against pid reuse.
     * {@code resume} is what an agent restarted under the same epoch needs to take the replica over again.
     */
    public record Entry(String jobId, int replicaIndex, long nodeEpoch, long pid, long processStartMillis,
                        int gpus, String account, String cluster, String chargeMode, Instant usageReportedUntil,
                        Resume resume) {

        /** An entry of an agent that wrote no resume part (or a test's): it can be fenced, not re-adopted. */
        public Entry(String jobId, int replicaIndex, long nodeEpoch, long pid, long processStartMillis, int gpus,
                     String account, String cluster, String chargeMode, Instant usageReportedUntil) {
            this(jobId, replicaIndex, nodeEpoch, pid, processStartMillis, gpus, account, cluster, chargeMode,
                    usageReportedUntil, null);
        }
    }

    /**
     * The rest of a running replica, for re-adoption: its GPUs and gang, when it started, a hash of its job token
     * (the token itself is only in the job's environment), the checkpoint marker time last reported, and a stop in
     * progress (its SIGKILL deadline, 0 when none, and whether the scheduler asked for it).
     */
    public record Resume(java.util.List<Integer> gpuIndices, int replicas, int restartCount, long startedAtMillis,
                         String tokenHash, long checkpointMarkerMillis, long stopDeadlineMillis,
                         boolean stoppedByScheduler) {
    }

    private final Path dir;

    public ProcessLedger(Path dir) {
        this.dir = dir;
    }

    public void record(Entry entry) {
        Properties p = new Properties();
        p.setProperty("jobId", entry.jobId());
        p.setProperty("replicaIndex", Integer.toString(entry.replicaIndex()));
        p.setProperty("nodeEpoch", Long.toString(entry.nodeEpoch()));
        p.setProperty("pid", Long.toString(entry.pid()));
        p.setProperty("processStartMillis", Long.toString(entry.processStartMillis()));
        p.setProperty("gpus", Integer.toString(entry.gpus()));
        p.setProperty("account", entry.account());
        p.setProperty("cluster", entry.cluster());
        p.setProperty("chargeMode", entry.chargeMode());
        p.setProperty("usageReportedUntil", Long.toString(entry.usageReportedUntil().toEpochMilli()));
        Resume r = entry.resume();
        if (r != null) {
            p.setProperty("gpuIndices", String.join(",", r.gpuIndices().stream().map(String::valueOf).toList()));
            p.setProperty("replicas", Integer.toString(r.replicas()));
            p.setProperty("restartCount", Integer.toString(r.restartCount()));
            p.setProperty("startedAtMillis", Long.toString(r.startedAtMillis()));
            p.setProperty("tokenHash", r.tokenHash());
            p.setProperty("checkpointMarkerMillis", Long.toString(r.checkpointMarkerMillis()));
            p.setProperty("stopDeadlineMillis", Long.toString(r.stopDeadlineMillis()));
            p.setProperty("stoppedByScheduler", Boolean.toString(r.stoppedByScheduler()));
        }
        Path file = file(entry.jobId(), entry.replicaIndex());
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        try (Writer out = Files.newBufferedWriter(tmp, StandardCharsets.UTF_8)) {
            p.store(out, "process started by the Allot node agent");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        try {
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Removes the replica's entry and its exit file: its exit has been reported. */
    public void forget(String jobId, int replicaIndex) {
        try {
            Files.deleteIfExists(exitFile(jobId, replicaIndex));
            Files.deleteIfExists(file(jobId, replicaIndex));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Every entry on disk; unreadable files are skipped (and left for a human). */
    public List<Entry> entries() {
        List<Entry> entries = new ArrayList<>();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "*.properties")) {
            for (Path file : files) {
                Properties p = new Properties();
                try (Reader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
                    p.load(in);
                    entries.add(new Entry(p.getProperty("jobId"), Integer.parseInt(p.getProperty("replicaIndex")),
                            Long.parseLong(p.getProperty("nodeEpoch")), Long.parseLong(p.getProperty("pid")),
                            Long.parseLong(p.getProperty("processStartMillis")),
                            Integer.parseInt(p.getProperty("gpus")), p.getProperty("account"),
                            p.getProperty("cluster"), p.getProperty("chargeMode"),
                            Instant.ofEpochMilli(Long.parseLong(p.getProperty("usageReportedUntil"))), resumeOf(p)));
                } catch (IOException | RuntimeException e) {
                    // not ours or corrupt: nothing safe to kill
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return entries;
    }

    private static Resume resumeOf(Properties p) {
        if (p.getProperty("tokenHash") == null) {
            return null;
        }
        String gpus = p.getProperty("gpuIndices", "");
        return new Resume(gpus.isEmpty() ? List.of() : java.util.Arrays.stream(gpus.split(",")).map(Integer::valueOf).toList(),
                Integer.parseInt(p.getProperty("replicas")), Integer.parseInt(p.getProperty("restartCount")),
                Long.parseLong(p.getProperty("startedAtMillis")), p.getProperty("tokenHash"),
                Long.parseLong(p.getProperty("checkpointMarkerMillis")), Long.parseLong(p.getProperty("stopDeadlineMillis")),
                Boolean.parseBoolean(p.getProperty("stoppedByScheduler")));
    }

    /** The ledger's directory (the entries and the supervisors' exit files). */
    public Path dir() {
        return dir;
    }

    /** Where the replica's {@link Supervisor} records its command's exit status, next to the entry. */
    public Path exitFile(String jobId, int replicaIndex) {
        return dir.resolve(safe(jobId) + ".r" + replicaIndex + ".exit");
    }

    private Path file(String jobId, int replicaIndex) {
        return dir.resolve(safe(jobId) + ".r" + replicaIndex + ".properties");
    }

    private static String safe(String jobId) {
        return jobId.replaceAll("[^A-Za-z0-9._-]", "_");
    }
}
