package dev.allot.cli.commands;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.allot.cli.ApiClient;
import dev.allot.cli.CliFailure;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * Submits a job from flags or a YAML/JSON job file (flags win over the file), prints its id and,
 * once the scheduler has seen it, its state, position, reason and expected start.
 */
@Command(name = "submit", mixinStandardHelpOptions = true,
        description = {"Submit a job: flags or a job file (YAML or JSON, the fields of POST /jobs; flags win).",
                "Prints the id and, once the scheduler has seen it, its position and expected start.",
                "e.g. allot submit -b lab/team-a -g 2 --min-runtime 30m --resumable -- python train.py"})
public final class SubmitCommand extends ApiCommand {

    @Option(names = {"-f", "--file"}, paramLabel = "FILE", description = "Job file, YAML or JSON (budget, cluster,"
            + " replicas, gpusPerReplica, minRuntimeSeconds, resumable, expectedDurationSeconds, priority, env, command, id).")
    Path file;

    @Option(names = {"-b", "--budget"}, paramLabel = "TEAM", description = "Leaf budget charged, e.g. lab/team-a.")
    String budget;

    @Option(names = {"-c", "--cluster"}, paramLabel = "CLUSTER", description = "Cluster; default the only one known, or $ALLOT_CLUSTER.")
    String cluster;

    @Option(names = {"-n", "--replicas"}, paramLabel = "N", description = "Gang size: N replicas, each on its own node (default 1).")
    Integer replicas;

    @Option(names = {"-g", "--gpus"}, paramLabel = "G", description = "GPUs per replica.")
    Integer gpus;

    @Option(names = "--min-runtime", paramLabel = "DURATION", description = "Protected minimum runtime, 0 to 8h"
            + " (0 = unallocated: free, preemptible at any time). e.g. 30m. Default 0.")
    String minRuntime;

    @Option(names = "--resumable", negatable = true, description = "The job checkpoints and can resume after a preemption.")
    Boolean resumable;

    @Option(names = "--expected-duration", paramLabel = "DURATION", description = "How long you expect it to run, e.g. 2h.")
    String expectedDuration;

    @Option(names = "--priority", paramLabel = "P", description = "Priority within the team, higher first (default 0).")
    Integer priority;

    @Option(names = {"-e", "--env"}, paramLabel = "KEY=VALUE", description = "Environment of each replica (repeatable).")
    Map<String, String> env;

    @Option(names = "--id", paramLabel = "ID", description = "Choose the job id (default: the service picks a UUID).")
    String id;

    @Option(names = "--wait", paramLabel = "SECONDS", defaultValue = "10",
            description = "How long to wait for the scheduler's first word on the job: its position and expected start,"
                    + " or its verdict (0: do not wait). Default ${DEFAULT-VALUE}.")
    int waitSeconds;

    @Parameters(paramLabel = "COMMAND", arity = "0..*", description = "The command each replica runs (after --).")
    List<String> command = new ArrayList<>();

    @Override
    int execute(boolean json) {
        ObjectNode job = fromFile();
        put(job, "budget", budget);
        put(job, "replicas", replicas);
        put(job, "gpusPerReplica", gpus);
        if (minRuntime != null) {
            job.put("minRuntimeSeconds", Durations.seconds("--min-runtime", minRuntime));
        }
        put(job, "resumable", resumable);
        if (expectedDuration != null) {
            job.put("expectedDurationSeconds", Durations.seconds("--expected-duration", expectedDuration));
        }
        put(job, "priority", priority);
        put(job, "id", id);
        if (env != null) {
            ObjectNode e = job.putObject("env");
            env.forEach(e::put);
        }
        if (!command.isEmpty()) {
            job.set("command", ApiCommand.PRETTY.valueToTree(command));
        }
        require(job);
        if (!job.hasNonNull("cluster") || cluster != null) {
            job.put("cluster", Clusters.resolve(api(), cluster, globals.env()));
        }
        if (!job.has("replicas")) {
            job.put("replicas", 1);
        }
        if (!job.has("minRuntimeSeconds")) {
            job.put("minRuntimeSeconds", 0);
        }
        String jobId = api().post("/jobs", job).path("id").asText();
        JsonNode seen = awaitScheduler(jobId);
        if (json) {
            Map<String, Object> body = new LinkedHashMap<>();
            body.put("id", jobId);
            body.put("job", seen);
            return printJson(body);
        }
        StringBuilder text = new StringBuilder("submitted " + jobId + "\n");
        if (seen == null) {
            text.append("the scheduler has not seen it yet; 'allot why ").append(jobId).append("' tells more later\n");
        } else {
            JsonNode queue = seen.path("queue");
            text.append("state ").append(seen.path("state").asText());
            if (present(queue.path("position"))) {
                text.append(", position ").append(queue.path("position").asInt());
            }
            if ("WAITING".equals(seen.path("state").asText())) {
                text.append(", expected start ").append(StartText.of(seen.path("expectedStart"), now()));
            }
            text.append('\n');
            if (present(queue.path("reason"))) {
                text.append("reason: ").append(queue.path("reason").asText()).append('\n');
            } else if (present(seen.path("rejection"))) {
                text.append("rejected: ").append(seen.path("rejection").path("reason").asText(
                        seen.path("rejection").toString())).append('\n');
            }
        }
        return print(text.toString());
    }

    /** The job once the scheduler has a word on it (accepted and in a snapshot, or decided), or null. */
    private JsonNode awaitScheduler(String jobId) {
        long deadline = System.nanoTime() + Duration.ofSeconds(Math.max(0, waitSeconds)).toNanos();
        while (true) {
            JsonNode job = api().get("/jobs/" + ApiClient.encode(jobId));
            // waiting: once it is in the scheduler's snapshot with an expected start; else once decided
            boolean decided = job.path("seenByScheduler").asBoolean()
                    && (present(job.path("expectedStart")) || !"WAITING".equals(job.path("state").asText()));
            if (decided) {
                return job;
            }
            if (System.nanoTime() >= deadline) {
                return waitSeconds > 0 && job.path("seenByScheduler").asBoolean() && present(job.path("queue")) ? job : null;
            }
            try {
                Thread.sleep(250); // polling the API: the scheduler publishes when its pass is done
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return null;
            }
        }
    }

    private ObjectNode fromFile() {
        if (file == null) {
            return ApiCommand.PRETTY.createObjectNode();
        }
        if (!Files.isRegularFile(file)) {
            throw CliFailure.usage("--file " + file + " does not exist; give a YAML or JSON job file");
        }
        try {
            String name = file.getFileName().toString().toLowerCase(java.util.Locale.ROOT);
            ObjectMapper mapper = name.endsWith(".json") ? new ObjectMapper() : new ObjectMapper(new YAMLFactory());
            JsonNode read = mapper.readTree(file.toFile());
            if (!(read instanceof ObjectNode object)) {
                throw CliFailure.usage("--file " + file + " must hold one job: a mapping of fields (budget, gpusPerReplica, ...)");
            }
            aliases(object);
            return object;
        } catch (IOException e) {
            throw CliFailure.usage("--file " + file + " is not valid YAML/JSON: " + e.getMessage().split("\n")[0]);
        }
    }

    /** Friendlier names a person may write in a job file: gpus, minRuntime: 30m, expectedDuration: 2h. */
    private static void aliases(ObjectNode job) {
        if (job.has("gpus") && !job.has("gpusPerReplica")) {
            job.set("gpusPerReplica", job.remove("gpus"));
        }
        if (job.has("minRuntime") && !job.has("minRuntimeSeconds")) {
            job.put("minRuntimeSeconds", Durations.seconds("minRuntime", job.remove("minRuntime").asText()));
        }
        if (job.has("expectedDuration") && !job.has("expectedDurationSeconds")) {
            job.put("expectedDurationSeconds", Durations.seconds("expectedDuration",
                    job.remove("expectedDuration").asText()));
        }
        if (job.path("command").isTextual()) {
            // one string: run through the shell, as a person typed it
            job.set("command", ApiCommand.PRETTY.valueToTree(List.of("sh", "-c", job.path("command").asText())));
        }
    }

    private static void require(ObjectNode job) {
        if (!job.hasNonNull("budget")) {
            throw CliFailure.usage("budget is missing: --budget TEAM (or 'budget:' in the job file), e.g. --budget lab/team-a;"
                    + " 'allot shares' lists the accounts");
        }
        if (!job.hasNonNull("gpusPerReplica")) {
            throw CliFailure.usage("GPUs per replica are missing: --gpus G (or 'gpusPerReplica:' in the job file)");
        }
        if (job.path("gpusPerReplica").asInt() < 1) {
            throw CliFailure.usage("--gpus must be at least 1, not " + job.path("gpusPerReplica").asText());
        }
        if (job.has("replicas") && job.path("replicas").asInt() < 1) {
            throw CliFailure.usage("--replicas must be at least 1, not " + job.path("replicas").asText());
        }
        long min = job.path("minRuntimeSeconds").asLong(0);
        if (min < 0 || min > 8 * 3600) {
            throw CliFailure.usage("--min-runtime must be between 0 and 8h (28800 s), not " + min + " s");
        }
        JsonNode cmd = job.path("command");
        if (!cmd.isArray() || cmd.isEmpty()) {
            throw CliFailure.usage("the command is missing: put it after '--', e.g. allot submit -b lab/team-a -g 1"
                    + " -- sleep 60 (or 'command:' in the job file)");
        }
    }

    private static void put(ObjectNode job, String field, Object value) {
        if (value instanceof String s) {
            job.put(field, s);
        } else if (value instanceof Integer i) {
            job.put(field, i);
        } else if (value instanceof Boolean b) {
            job.put(field, b);
        }
    }
}
