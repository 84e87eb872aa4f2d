package dev.allot.cli.commands;

import com.fasterxml.jackson.databind.JsonNode;
import dev.allot.cli.ApiClient;
import dev.allot.cli.render.Format;
import dev.allot.cli.render.Table;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** Every event of a job, in order, with the details that matter for each kind. */
@Command(name = "history", mixinStandardHelpOptions = true,
        description = "Every event of a job in order: submission, the scheduler's verdicts, the node agents' reports.")
public final class HistoryCommand extends ApiCommand {

    /** Fields that are noise in a one-line summary (shown in -o json). */
    private static final Set<String> SKIP = Set.of("jobId", "command", "env", "submittedAt", "ratios", "assignments",
            "requestedAt", "nodeEpoch", "accountsAhead");

    @Parameters(paramLabel = "JOB", description = "Job id.")
    String jobId;

    @Override
    int execute(boolean json) {
        JsonNode history = api().get("/jobs/" + ApiClient.encode(jobId) + "/history");
        if (json) {
            return printJson(history);
        }
        Table table = new Table().column("TIME").column("EVENT").column("STATE").column("DETAILS");
        for (JsonNode e : history.path("events")) {
            table.row(Format.clock(Format.instant(e.path("at"))), e.path("type").asText(),
                    present(e.path("stateAfter")) ? e.path("stateAfter").asText() : "", details(e.path("details")));
        }
        return print("job " + jobId + ", " + history.path("state").asText() + ", " + history.path("count").asInt()
                + " events\n" + table.render(width()));
    }

    static String details(JsonNode details) {
        List<String> parts = new ArrayList<>();
        JsonNode assignments = details.path("assignments");
        if (assignments.isArray() && !assignments.isEmpty()) {
            List<String> nodes = new ArrayList<>();
            assignments.forEach(a -> nodes.add(a.path("nodeId").asText() + a.path("gpuIndices").toString()));
            parts.add("on " + String.join(" ", nodes));
        }
        details.fields().forEachRemaining(f -> {
            JsonNode v = f.getValue();
            if (!SKIP.contains(f.getKey()) && present(v) && !v.isContainerNode() && !v.asText().isBlank()) {
                parts.add(f.getKey() + "=" + v.asText());
            }
        });
        if (details.path("command").isArray()) {
            List<String> argv = new ArrayList<>();
            details.path("command").forEach(a -> argv.add(a.asText()));
            parts.add("command=" + String.join(" ", argv));
        }
        return String.join(" ", parts);
    }
}
