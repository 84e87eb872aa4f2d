package dev.allot.nodeagent.process;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A small {@code /bin/sh} supervisor between the agent and each replica's command. It runs the command in
 * the foreground, then writes the command's exit status to the replica's exit file and exits with that same
 * status (shell builtins only once the command has ended: the supervisor's exit is on the path of every stop
 * and GPU hand-over; the status is one write of a few bytes, and an empty file reads as not written). Why: the agent's own child is the supervisor, and when the agent dies (kill -9)
 * the supervisor lives on and still learns the command's status, which a restarted agent then reads
 * instead of reporting "unknown". The file's modification time is when the command ended.
 *
 * <p>The supervisor catches SIGTERM (and does nothing with it) so that a stop signals the command, not the
 * supervisor: a POSIX shell runs a caught signal's trap only after its foreground command has ended, and the
 * command itself gets default signal handling (traps are reset in children). The agent signals the whole
 * tree, so the command gets the SIGTERM; a SIGKILL goes to the command first. (A SIGTERM that comes after the trap
 * is set but before the command has started is swallowed: the command then runs until the SIGKILL at the grace's
 * end. Two attempts to close that window, 2026-12-06, still lost the signal under load: a child forked but not yet
 * exec'd handles SIGTERM as the shell does.)
 */
public final class Supervisor {

    /** $1 is the exit file, the rest is the command. Status 128+N when the command died of signal N. */
    static final String SCRIPT = """
            trap ':' TERM
            exit_file=$1; shift
            "$@"
            status=$?
            printf '%s\\n' "$status" > "$exit_file"
            exit "$status"
            """;

    /** The supervisor's $0: with the exit file after it, how a restarted agent knows its supervisors by argv. */
    public static final String NAME = "allot-supervisor";

    /** What the exit file says: the command's status, and when it ended. */
    public record Exit(int code, Instant at) {
    }

    private Supervisor() {
    }

    /** The argv that runs {@code command} under the supervisor, recording its status in {@code exitFile}. */
    public static List<String> wrap(List<String> command, Path exitFile) {
        List<String> argv = new ArrayList<>(List.of("/bin/sh", "-c", SCRIPT, NAME, exitFile.toString()));
        argv.addAll(command);
        return argv;
    }

    /** The recorded exit, if the command has ended (and the supervisor got to write it). */
    public static Optional<Exit> read(Path exitFile) {
        try {
            if (!Files.exists(exitFile)) {
                return Optional.empty();
            }
            int code = Integer.parseInt(Files.readString(exitFile, StandardCharsets.UTF_8).strip());
            return Optional.of(new Exit(code, Files.getLastModifiedTime(exitFile).toInstant()));
        } catch (IOException | RuntimeException e) {
            return Optional.empty(); // half-written or foreign: not a status we can vouch for
        }
    }

    /**
     * True when {@code program} can be run: a path that is an executable file, or a name found on
     * {@code PATH} of the environment it will run with. (The supervisor would run a missing program and
     * exit 127 after the job was reported started; checked first, it is reported as never started.)
     */
    public static boolean runnable(String program, Map<String, String> env) {
        if (program == null || program.isBlank()) {
            return false;
        }
        if (program.contains("/")) {
            return Files.isExecutable(Path.of(program)) && !Files.isDirectory(Path.of(program));
        }
        String path = env.getOrDefault("PATH", "/usr/local/bin:/usr/bin:/bin");
        for (String dir : path.split(File.pathSeparator)) {
            Path candidate = Path.of(dir.isEmpty() ? "." : dir).resolve(program);
            if (Files.isExecutable(candidate) && !Files.isDirectory(candidate)) {
                return true;
            }
        }
        return false;
    }
}
