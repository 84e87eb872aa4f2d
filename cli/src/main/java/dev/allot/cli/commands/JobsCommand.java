package dev.allot.cli.commands;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.allot.cli.ApiClient;
import dev.allot.cli.CliFailure;
import dev.allot.cli.render.Format;
import dev.allot.cli.render.Table;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeSet;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** squeue: my jobs, a team's or everyone's, with position, how long they wait, expected start and reason. */
@Command(name = "jobs", aliases = "squeue", mixinStandardHelpOptions = true,
        description = {"Jobs (squeue): yours by default, --team TEAM (and its sub-accounts) or --all;",
                "id, team, state, GPUs, position, waiting for, expected start, reason (from the scheduler's latest queue).",
                "Expected start: 'in 2h10m'; '~ in 3h00m' when it rests on default run times (low confidence);",
                "'> 7d' beyond the scheduler's horizon; '-' until the scheduler estimated it."})
public final class JobsCommand extends ApiCommand {

    static final class Who {
        @Option(names = "--team", paramLabel = "TEAM", description = "Jobs charged to TEAM or any account under it.")
        String team;

        @Option(names = "--all", description = "Everyone's jobs.")
        boolean all;
    }

    @ArgGroup(exclusive = true)
    Who who = new Who();

    @Option(names = "--state", paramLabel = "STATE", description = "WAITING, RUNNING, COMPLETED, FAILED, REJECTED or CANCELLED."
            + " Default: WAITING and RUNNING.")
    String state;

    @Option(names = {"-c", "--cluster"}, paramLabel = "CLUSTER", description = "Only this cluster.")
    String cluster;

    @Option(names = "--limit", paramLabel = "N", defaultValue = "200", description = "At most N jobs (default ${DEFAULT-VALUE}).")
    int limit;

    @Override
    int execute(boolean json) {
        if (state != null) {
            state = state.toUpperCase(java.util.Locale.ROOT);
        }
        if (limit < 1) {
            throw CliFailure.usage("--limit must be at least 1, not " + limit);
        }
        Map<String, Object> query = new LinkedHashMap<>();
        query.put("state", state);
        query.put("cluster", cluster);
        query.put("submitter", who.team == null && !who.all ? api().user() : null);
        query.put("limit", 10_000);
        JsonNode listed = api().get("/jobs" + ApiClient.query(query)).path("jobs");
        ArrayNode jobs = ApiCommand.PRETTY.createArrayNode();
        for (JsonNode job : listed) {
            String s = job.path("state").asText();
            String budget = job.path("budget").asText("");
            boolean inTeam = who.team == null || budget.equals(who.team) || budget.startsWith(who.team + "/");
            boolean inState = state != null || s.equals("WAITING") || s.equals("RUNNING");
            if (inTeam && inState && jobs.size() < limit) {
                jobs.add(job.deepCopy());
            }
        }
        Map<String, JsonNode> queues = queues(jobs);
        for (JsonNode job : jobs) {
            JsonNode queue = queues.get(job.path("cluster").asText());
            JsonNode entry = queue == null ? null : entry(queue, job.path("id").asText());
            boolean current = entry != null && entry.path("state").asText().equals(job.path("state").asText());
            ((ObjectNode) job).set("queue", current ? entry : null);
            ((ObjectNode) job).set("expectedStart", current ? StartText.fromQueue(entry, queue) : null);
        }
        if (json) {
            Map<String, Object> body = new LinkedHashMap<>();
            body.put("count", jobs.size());
            body.put("jobs", jobs);
            return printJson(body);
        }
        if (jobs.isEmpty()) {
            return print(who.all ? "no jobs\n" : who.team != null ? "no jobs for " + who.team + "\n"
                    : "no jobs of " + api().user() + " (--all for everyone's, --team TEAM for a team's)\n");
        }
        Instant now = now();
        Table table = new Table().column("ID").column("TEAM").column("STATE").number("GPUS").number("POS")
                .number("WAITING").column("START").column("REASON");
        for (JsonNode job : jobs) {
            JsonNode q = job.path("queue");
            String s = job.path("state").asText();
            Instant submitted = Format.instant(job.path("submittedAt"));
            table.row(job.path("id").asText(), job.path("budget").asText("-"), s,
                    job.path("gpus").isNumber() ? job.path("gpus").asInt() : null,
                    present(q.path("position")) ? q.path("position").asInt() : null,
                    s.equals("WAITING") && submitted != null ? Format.duration(Duration.between(submitted, now)) : null,
                    StartText.column(job.path("expectedStart"), now),
                    present(q.path("reason")) ? q.path("reason").asText()
                            : s.equals("WAITING") && !job.path("seenByScheduler").asBoolean() ? "not seen by the scheduler yet"
                            : null);
        }
        String rendered = table.render(width());
        boolean marked = false;
        for (JsonNode job : jobs) {
            String start = StartText.column(job.path("expectedStart"), now);
            marked |= start.startsWith("~") || start.startsWith(">");
        }
        if (!marked) {
            return print(rendered);
        }
        StringBuilder out = new StringBuilder(rendered.endsWith("\n") ? rendered : rendered + "\n");
        dev.allot.cli.render.Words.wrap(StartText.LEGEND, width()).forEach(l -> out.append(l).append('\n'));
        return print(out.toString());
    }

    private static JsonNode entry(JsonNode queue, String jobId) {
        for (JsonNode e : queue.path("entries")) {
            if (e.path("jobId").asText().equals(jobId)) {
                return e;
            }
        }
        return null;
    }

    /** The latest queue snapshot ({@code GET /queue}) of every cluster the jobs are on. */
    private Map<String, JsonNode> queues(ArrayNode jobs) {
        TreeSet<String> clusters = new TreeSet<>();
        jobs.forEach(j -> {
            String s = j.path("state").asText();
            if (present(j.path("cluster")) && (s.equals("WAITING") || s.equals("RUNNING"))) {
                clusters.add(j.path("cluster").asText());
            }
        });
        Map<String, JsonNode> byCluster = new HashMap<>();
        for (String c : clusters) {
            byCluster.put(c, api().get("/queue?cluster=" + ApiClient.encode(c)));
        }
        return byCluster;
    }
}
