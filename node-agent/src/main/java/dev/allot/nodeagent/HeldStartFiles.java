package dev.allot.nodeagent;

import dev.allot.nodeagent.process.ReplicaKey;
import dev.allot.schemas.NodeCommand;
import dev.allot.schemas.StartJob;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.jboss.logging.Logger;

/**
 * The starts a node holds until their GPUs are free, kept in the state dir ({@code nodes/<node>/held/}) from the
 * moment they are held until they start or are dropped. Why: a held StartJob counts as handled, so the command
 * position passes it; an agent killed while holding it, and back soon enough to keep the node's epoch, would never
 * read it again, and the scheduler, which placed the job, would wait for a start that never comes.
 * One file per replica (a replica has at most one held start), the command as Avro's single-object encoding.
 */
final class HeldStartFiles {

    private static final Logger LOG = Logger.getLogger(HeldStartFiles.class);

    /** A held start read back: the command's event id and the start. */
    record Kept(String eventId, StartJob command) {
        ReplicaKey key() {
            return new ReplicaKey(command.getNodeId(), command.getJobId(), command.getReplicaIndex());
        }
    }

    private final StateDir state;

    HeldStartFiles(StateDir state) {
        this.state = state;
    }

    void keep(ReplicaKey key, String eventId, StartJob command) {
        try {
            Path file = file(key);
            Files.createDirectories(file.getParent());
            ByteBuffer bytes = NodeCommand.newBuilder().setEventId(eventId).setOccurredAt(Instant.now())
                    .setPayload(command).build().toByteBuffer();
            byte[] content = new byte[bytes.remaining()];
            bytes.get(content);
            StateDir.writeAtomically(file, content);
        } catch (IOException | RuntimeException e) {
            LOG.warnf(e, "could not keep the held start of %s; an agent killed before it starts would lose it", key);
        }
    }

    void forget(ReplicaKey key) {
        try {
            Files.deleteIfExists(file(key));
        } catch (IOException | RuntimeException e) {
            LOG.warnf(e, "could not forget the held start of %s", key);
        }
    }

    /**
     * The node's held starts under {@code epoch} as an earlier run left them, oldest first; those of another epoch
     * (fenced: the scheduler placed them again elsewhere) and unreadable files are dropped.
     */
    List<Kept> load(String nodeId, long epoch) {
        List<Kept> kept = new ArrayList<>();
        Path dir = dir(nodeId);
        if (!Files.isDirectory(dir)) {
            return kept;
        }
        try (Stream<Path> files = Files.list(dir)) {
            for (Path file : files.filter(f -> !f.getFileName().toString().endsWith(".tmp"))
                    .sorted(java.util.Comparator.comparing(HeldStartFiles::modified)).toList()) {
                try {
                    NodeCommand command = NodeCommand.fromByteBuffer(ByteBuffer.wrap(Files.readAllBytes(file)));
                    if (command.getPayload() instanceof StartJob start && start.getNodeEpoch() == epoch
                            && start.getNodeId().equals(nodeId)) {
                        kept.add(new Kept(command.getEventId(), start));
                        continue;
                    }
                } catch (IOException | RuntimeException e) {
                    LOG.warnf("dropping the unreadable held start %s: %s", file, e.toString());
                }
                // unreadable, or of an older epoch
                Files.deleteIfExists(file);
            }
        } catch (IOException e) {
            LOG.warnf(e, "could not read the held starts of %s", nodeId);
        }
        return kept;
    }

    private static java.nio.file.attribute.FileTime modified(Path file) {
        try {
            return Files.getLastModifiedTime(file);
        } catch (IOException e) {
            return java.nio.file.attribute.FileTime.fromMillis(0);
        }
    }

    private Path dir(String nodeId) {
        return state.nodeDir(nodeId).resolve("held");
    }

    private Path file(ReplicaKey key) {
        return dir(key.nodeId()).resolve(StateDir.safe(key.jobId()) + ".r" + key.replicaIndex());
    }
}
