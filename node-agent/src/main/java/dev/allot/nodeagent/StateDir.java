package dev.allot.nodeagent;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * The agent's state directory: what must survive an agent restart.
 * <pre>
 * nodes/&lt;nodeId&gt;/epoch                          last epoch registered for the node
 * nodes/&lt;nodeId&gt;/processes/&lt;job&gt;.r&lt;i&gt;.properties  the processes this agent started and still owns
 * checkpoints/&lt;job&gt;/replica-&lt;i&gt;/                  ALLOT_CHECKPOINT_DIR (marker file: checkpoint)
 * work/&lt;job&gt;/replica-&lt;i&gt;/                         a replica's working directory and HOME
 * logs/&lt;job&gt;.r&lt;i&gt;.log                            stdout and stderr of a replica (appended across restarts)
 * </pre>
 * Modes: the root, {@code checkpoints/}, {@code work/} and their per-job dirs are 0711 (a job's user can pass
 * through to its own dirs, list nothing); a replica's checkpoint and work dirs belong to the job's user, 0700;
 * {@code nodes/} (the ledger: what the agent would kill) and {@code logs/} are the agent's alone, 0700, and a log
 * file is 0600 (the job writes it through the descriptor it is given; people read it through the API).
 */
public final class StateDir {

    private final Path root;

    public StateDir(Path root) {
        this.root = root.toAbsolutePath().normalize();
        createDirectories(this.root);
        mode(this.root, "rwx--x--x");
    }

    public Path root() {
        return root;
    }

    public Path nodeDir(String nodeId) {
        return createDirectories(mode(createDirectories(root.resolve("nodes")), "rwx------").resolve(safe(nodeId)));
    }

    public Path processesDir(String nodeId) {
        return createDirectories(nodeDir(nodeId).resolve("processes"));
    }

    public Path checkpointDir(String jobId, int replicaIndex) {
        return replicaDir("checkpoints", jobId, replicaIndex);
    }

    /** A replica's working directory (its HOME). */
    public Path workDir(String jobId, int replicaIndex) {
        return replicaDir("work", jobId, replicaIndex);
    }

    public Path logFile(String jobId, int replicaIndex) {
        return mode(createDirectories(root.resolve("logs")), "rwx------").resolve(safe(jobId) + ".r" + replicaIndex + ".log");
    }

    private Path replicaDir(String kind, String jobId, int replicaIndex) {
        Path parent = mode(createDirectories(root.resolve(kind)), "rwx--x--x");
        Path job = mode(createDirectories(parent.resolve(safe(jobId))), "rwx--x--x");
        return createDirectories(job.resolve("replica-" + replicaIndex));
    }

    private static Path mode(Path path, String permissions) {
        try {
            java.nio.file.Files.setPosixFilePermissions(path,
                    java.nio.file.attribute.PosixFilePermissions.fromString(permissions));
            return path;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot set the mode of " + path, e);
        }
    }

    /**
     * The next epoch of a node: strictly greater than any epoch registered before from this state dir, and
     * normally the registration time in milliseconds (so it also grows when the state dir is lost).
     */
    public synchronized long nextEpoch(String nodeId, long nowMillis) {
        Path file = nodeDir(nodeId).resolve("epoch");
        long last = 0;
        try {
            if (Files.exists(file)) {
                last = Long.parseLong(Files.readString(file, StandardCharsets.UTF_8).trim());
            }
        } catch (IOException | NumberFormatException e) {
            last = 0; // unreadable: the clock alone still makes the epoch grow
        }
        long epoch = Math.max(nowMillis, last + 1);
        writeAtomically(file, Long.toString(epoch));
        return epoch;
    }

    static void writeAtomically(Path file, String content) {
        try {
            Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
            Files.writeString(tmp, content, StandardCharsets.UTF_8);
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }

    /** A file-name-safe form of an id (job ids are UUIDs or slugs, but never trust them). */
    static String safe(String id) {
        String cleaned = id.replaceAll("[^A-Za-z0-9._-]", "_");
        return cleaned.isEmpty() || cleaned.startsWith(".") ? "_" + cleaned : cleaned;
    }

    private static Path createDirectories(Path dir) {
        try {
            return Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create " + dir, e);
        }
    }
}
