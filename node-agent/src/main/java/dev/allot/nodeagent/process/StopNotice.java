package dev.allot.nodeagent.process;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.Instant;

/**
 * The file a stop writes into the replica's checkpoint dir just before its SIGTERM
 * ({@code $ALLOT_PREEMPT_NOTICE_FILE} = {@code $ALLOT_CHECKPOINT_DIR/preempt-notice}), so a job learns why it
 * is stopped and how long it has to checkpoint. Lines of {@code key=value} (a shell can source it):
 * <pre>
 * reason=PREEMPTED                      the StopJob's reason, or AGENT_SHUTDOWN
 * graceSeconds=30                       SIGKILL follows this long after the SIGTERM
 * deadline=2026-12-01T22:30:00.123Z     when the SIGKILL comes
 * deadlineEpochMillis=1796164200123
 * </pre>
 * Written atomically (a reader never sees half of it); removed when the replica starts again.
 */
public final class StopNotice {

    private StopNotice() {
    }

    public static void write(Path file, String reason, Duration grace, Instant signalledAt) {
        Instant deadline = signalledAt.plus(grace);
        String content = "reason=" + reason + "\n"
                + "graceSeconds=" + grace.toSeconds() + "\n"
                + "deadline=" + deadline + "\n"
                + "deadlineEpochMillis=" + deadline.toEpochMilli() + "\n";
        // The dir belongs to the job's user: a fresh name created exclusively (never through a link the job
        // planted), then renamed over the notice (a rename replaces a link, it does not follow it).
        Path tmp = file.resolveSibling(file.getFileName() + "." + java.util.UUID.randomUUID() + ".tmp");
        try {
            Files.writeString(tmp, content, StandardCharsets.UTF_8, java.nio.file.StandardOpenOption.CREATE_NEW,
                    java.nio.file.StandardOpenOption.WRITE);
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the stop notice " + file, e);
        }
    }
}
