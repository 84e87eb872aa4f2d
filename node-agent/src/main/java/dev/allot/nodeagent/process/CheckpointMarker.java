package dev.allot.nodeagent.process;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.Optional;

/** A replica's checkpoint marker ({@code $ALLOT_CHECKPOINT_DIR/checkpoint}), read safely: the job owns its dir. */
public final class CheckpointMarker {

    private CheckpointMarker() {
    }

    /** Its modification time; null when there is none. */
    public static FileTime time(Path marker) {
        return JobLauncher.markerTime(marker);
    }

    /** The marker's first line, when the job wrote where its checkpoint is. */
    public static Optional<String> location(Path marker) {
        // The job's user owns the dir: never follow a link it planted (it would read a root-only file's first line
        // into job-events), never open anything but a plain file (a FIFO would block), read at most 4 KiB.
        if (!Files.isRegularFile(marker, LinkOption.NOFOLLOW_LINKS)) {
            return Optional.empty();
        }
        try (var in = Files.newInputStream(marker, LinkOption.NOFOLLOW_LINKS)) {
            String content = new String(in.readNBytes(4096), StandardCharsets.UTF_8).strip();
            String first = content.lines().findFirst().orElse("").strip();
            return first.isEmpty() ? Optional.empty() : Optional.of(first.length() > 1000 ? first.substring(0, 1000) : first);
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }
}
