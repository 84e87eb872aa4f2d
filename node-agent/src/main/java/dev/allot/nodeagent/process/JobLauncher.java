package dev.allot.nodeagent.process;

import dev.allot.nodeagent.StateDir;
import dev.allot.schemas.StartJob;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Starts one replica's process: its dirs (given to the job's user), its environment (clean: see
 * {@link JobSandbox}), its secrets (from the node's {@link SecretStore}), its job token, and the supervisor
 * around it. A StartJob's env entries named {@code secret:<VAR>} are references to secrets (the scheduler folds
 * the submission's {@code secretEnv} in so): {@code VAR} gets the secret's value, read here.
 */
public final class JobLauncher {

    /** The env key prefix of a secret reference in a StartJob. */
    public static final String SECRET_PREFIX = "secret:";
    private static final SecureRandom RANDOM = new SecureRandom();

    private final StateDir state;
    private final JobSandbox sandbox;
    private final SecretStore secrets;
    private final Supplier<String> localUrl;

    /**
     * @param localUrl this agent's HTTP API as a job on this machine reaches it (for {@code ALLOT_CHECKPOINT_URL});
     *                 null when not known
     */
    public JobLauncher(StateDir state, JobSandbox sandbox, SecretStore secrets, Supplier<String> localUrl) {
        this.state = state;
        this.sandbox = sandbox;
        this.secrets = secrets;
        this.localUrl = localUrl;
    }

    public JobSandbox sandbox() {
        return sandbox;
    }

    /** Starts the replica; an IOException says why it cannot run (reported as exit 127), also in its log. */
    public RunningReplica launch(ReplicaKey key, StartJob command, Path exitFile, Instant now) throws IOException {
        if (command.getCommand().isEmpty()) {
            throw new IllegalArgumentException("empty command");
        }
        Optional<JobSandbox.User> as = sandbox.lease(key);
        try {
            return launch(key, command, exitFile, now, as);
        } catch (IOException | RuntimeException e) {
            finished(key);
            throw e;
        }
    }

    /** A replica an earlier run of the agent started is taken over: with a uid of its own, that uid stays its. */
    public void adopted(ReplicaKey key) {
        if (sandbox.isolatesReplicas()) {
            try {
                sandbox.readopt(key, (Integer) Files.getAttribute(state.checkpointDir(key.jobId(), key.replicaIndex()),
                        "unix:uid", LinkOption.NOFOLLOW_LINKS));
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }
    }

    /** The replica's exit was reported: with a uid of its own, its dirs go back to the agent and the uid is free. */
    public void finished(ReplicaKey key) {
        if (sandbox.isolatesReplicas()) {
            sandbox.disown(state.checkpointDir(key.jobId(), key.replicaIndex()));
            sandbox.disown(state.workDir(key.jobId(), key.replicaIndex()));
        }
        sandbox.release(key);
    }

    private RunningReplica launch(ReplicaKey key, StartJob command, Path exitFile, Instant now,
                                  Optional<JobSandbox.User> as) throws IOException {
        Path log = logFile(key);
        Path checkpointDir = state.checkpointDir(key.jobId(), key.replicaIndex());
        Path workDir = state.workDir(key.jobId(), key.replicaIndex());
        Path notice = RunningReplica.noticeFile(checkpointDir);
        // Left by an earlier run of the same replica here: they are not about this one.
        Files.deleteIfExists(exitFile);
        Files.deleteIfExists(notice);
        sandbox.own(checkpointDir, as);
        sandbox.own(workDir, as);

        Map<String, String> declared = new LinkedHashMap<>();
        Map<String, String> references = new LinkedHashMap<>();
        command.getEnv().forEach((name, value) -> {
            if (name.startsWith(SECRET_PREFIX)) {
                references.put(name.substring(SECRET_PREFIX.length()), value);
            } else {
                declared.put(name, value);
            }
        });
        Map<String, String> secretValues;
        try {
            secretValues = secrets.resolve(command.getBudget(), references);
        } catch (SecretStore.Refused e) {
            throw refused(log, e.getMessage());
        }
        String token = newToken();
        Map<String, String> allot = new LinkedHashMap<>();
        allot.put("CUDA_VISIBLE_DEVICES", String.join(",", command.getGpuIndices().stream().map(String::valueOf).toList()));
        allot.put("ALLOT_JOB_ID", key.jobId());
        allot.put("ALLOT_CHECKPOINT_DIR", checkpointDir.toString());
        allot.put("ALLOT_RESTART_COUNT", Integer.toString(command.getRestartCount()));
        allot.put("ALLOT_REPLICA_INDEX", Integer.toString(key.replicaIndex()));
        allot.put("ALLOT_REPLICAS", Integer.toString(command.getReplicas()));
        allot.put("ALLOT_NODE_ID", key.nodeId());
        allot.put("ALLOT_PREEMPT_NOTICE_FILE", notice.toString());
        allot.put("ALLOT_JOB_TOKEN", token);
        String url = localUrl.get();
        if (url != null) {
            allot.put("ALLOT_CHECKPOINT_URL", url + "/jobs/" + java.net.URLEncoder.encode(key.jobId(), StandardCharsets.UTF_8)
                    + "/checkpoint?replica=" + key.replicaIndex());
        }
        List<String> dropped = new ArrayList<>();
        // Allot's variables last: a job's env cannot fake its own GPUs, identity or token.
        Map<String, String> env = sandbox.environment(as, workDir, declared, secretValues, allot, dropped);
        if (!dropped.isEmpty()) {
            note(log, "env names " + dropped + " cannot be exported by a shell: left out");
        }
        if (!Supervisor.runnable(command.getCommand().get(0), env)) {
            throw refused(log, "cannot run '" + command.getCommand().get(0) + "': not an executable file or on PATH");
        }
        ProcessBuilder builder = new ProcessBuilder(
                sandbox.prioritised(Supervisor.wrap(sandbox.wrap(command.getCommand(), as), exitFile)));
        builder.environment().clear();
        builder.environment().putAll(JobSandbox.LAUNCH_ENV);
        builder.directory(workDir.toFile());
        builder.redirectErrorStream(true);
        builder.redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        builder.redirectInput(ProcessBuilder.Redirect.PIPE);
        FileTime markerAtStart = markerTime(checkpointDir.resolve("checkpoint"));
        Process process = builder.start();
        try (OutputStream stdin = process.getOutputStream()) {
            stdin.write(JobSandbox.script(env));
        } catch (IOException e) {
            // the loader is gone already (it could not start): its exit says so
        }
        return new RunningReplica(key, command, process, now, checkpointDir, markerAtStart, exitFile, token);
    }

    /** The replica's log file, made 0600 (the agent's alone) if it is new. */
    private Path logFile(ReplicaKey key) throws IOException {
        Path log = state.logFile(key.jobId(), key.replicaIndex());
        if (!Files.exists(log, LinkOption.NOFOLLOW_LINKS)) {
            Files.createFile(log, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        }
        return log;
    }

    private static IOException refused(Path log, String why) {
        note(log, "cannot start: " + why);
        return new IOException(why);
    }

    /** A line of the agent's in the job's own output, where its submitter reads it ({@code allot logs}). */
    private static void note(Path log, String line) {
        try {
            Files.writeString(log, "allot-agent: " + line + "\n", StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                    StandardOpenOption.APPEND);
        } catch (IOException ignored) {
            // the agent's own log has it too
        }
    }

    private static String newToken() {
        byte[] bytes = new byte[32];
        RANDOM.nextBytes(bytes);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    public static FileTime markerTime(Path marker) {
        try {
            return Files.exists(marker, LinkOption.NOFOLLOW_LINKS)
                    ? Files.getLastModifiedTime(marker, LinkOption.NOFOLLOW_LINKS) : null;
        } catch (IOException e) {
            return null;
        }
    }
}
