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

    /** The node's agent told the scheduler it lives at {@code millis} (registration, heartbeat). */
    public void recordHeard(String nodeId, long millis) {
        writeAtomically(nodeDir(nodeId).resolve("heard"), Long.toString(millis));
    }

    /** A clean stop ended the node's processes: the next run takes a new epoch, whatever the time. */
    public void forgetHeard(String nodeId) {
        try {
            Files.deleteIfExists(nodeDir(nodeId).resolve("heard"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The node's last epoch, if its agent was last heard from less than {@code window} before {@code nowMillis}:
     * the scheduler has not declared the node lost yet (its lost-after is longer), so a restarted agent may keep the
     * epoch and the processes that run under it. Empty otherwise (or when unknown).
     */
    public synchronized java.util.OptionalLong resumableEpoch(String nodeId, long nowMillis, java.time.Duration window) {
        Path heard = nodeDir(nodeId).resolve("heard");
        Path epoch = nodeDir(nodeId).resolve("epoch");
        try {
            if (window.isZero() || window.isNegative() || !Files.exists(heard) || !Files.exists(epoch)) {
                return java.util.OptionalLong.empty();
            }
            long at = Long.parseLong(Files.readString(heard, StandardCharsets.UTF_8).trim());
            if (nowMillis < at || nowMillis - at >= window.toMillis()) {
                return java.util.OptionalLong.empty();
            }
            return java.util.OptionalLong.of(Long.parseLong(Files.readString(epoch, StandardCharsets.UTF_8).trim()));
        } catch (IOException | NumberFormatException e) {
            return java.util.OptionalLong.empty();
        }
    }

    /**
     * Where the node's commands are read from next, per {@code node-commands} partition: every command of the node
     * before these offsets has been handled. Empty when not known.
     */
    public java.util.Map<Integer, Long> commandPositions(String nodeId) {
        Path file = nodeDir(nodeId).resolve("commands");
        java.util.Map<Integer, Long> positions = new java.util.TreeMap<>();
        try {
            if (!Files.exists(file)) {
                return positions;
            }
            for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                int eq = line.indexOf('=');
                if (eq > 0) {
                    positions.put(Integer.parseInt(line.substring(0, eq).trim()), Long.parseLong(line.substring(eq + 1).trim()));
                }
            }
            return positions;
        } catch (IOException | NumberFormatException e) {
            return new java.util.TreeMap<>(); // unreadable: not known
        }
    }

    public void recordCommandPositions(String nodeId, java.util.Map<Integer, Long> positions) {
        StringBuilder out = new StringBuilder();
        new java.util.TreeMap<>(positions).forEach((partition, offset) -> out.append(partition).append('=').append(offset).append('\n'));
        writeAtomically(nodeDir(nodeId).resolve("commands"), out.toString());
    }

    static void writeAtomically(Path file, String content) {
        writeAtomically(file, content.getBytes(StandardCharsets.UTF_8));
    }

    /** Writes a sibling tmp file and moves it into place: a reader sees the old content or the new, never a part. */
    static void writeAtomically(Path file, byte[] content) {
        try {
            Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
            Files.write(tmp, content);
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
