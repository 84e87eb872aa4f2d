package dev.allot.cli.commands;

import com.fasterxml.jackson.databind.JsonNode;
import dev.allot.cli.ApiClient;
import dev.allot.cli.render.Format;
import dev.allot.cli.render.Words;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * sprio, in Allot's terms: where the job stands and why. Waiting: its position, the accounts ranked
 * ahead at each level of the tree with their ratios next to its own branch's, the resource missing or
 * the reservation that holds (the scheduler's reason). Running: its contract (protected until,
 * preemptible now). Preempted: who displaced it, their ratio against its own, the margin, the work lost.
 */
@Command(name = "why", aliases = "sprio", mixinStandardHelpOptions = true,
        description = {"Why a job waits, runs or was preempted (sprio): position, accounts ranked ahead at each level",
                "of the tree with their ratios, the missing resource or reservation, the contract, and for each",
                "preemption who displaced it, the ratios, the margin and the work lost."})
public final class WhyCommand extends ApiCommand {

    @Parameters(paramLabel = "JOB", description = "Job id.")
    String jobId;

    @Override
    int execute(boolean json) {
        JsonNode job = api().get("/jobs/" + ApiClient.encode(jobId));
        String cluster = job.path("cluster").asText(null);
        Map<String, Double> ratios = cluster == null ? Map.of() : ratios(api().get("/budgets"), cluster);
        JsonNode queue = job.path("queue");
        if (json) {
            Map<String, Object> body = new LinkedHashMap<>();
            body.put("id", jobId);
            body.put("state", job.path("state").asText());
            body.put("budget", job.path("budget").asText(null));
            body.put("cluster", cluster);
            body.put("ownRatio", ratios.get(job.path("budget").asText("")));
            body.put("queue", present(queue) ? queue : null);
            body.put("levels", levels(job, ratios));
            body.put("expectedStart", present(job.path("expectedStart")) ? job.path("expectedStart") : null);
            body.put("protectedUntil", text(job.path("protectedUntil")));
            body.put("preemptible", preemptible(job, now()));
            body.put("rejection", present(job.path("rejection")) ? job.path("rejection") : null);
            body.put("preemptions", job.path("preemptions"));
            return printJson(body);
        }
        int width = width();
        Instant now = now();
        StringBuilder out = new StringBuilder();
        String state = job.path("state").asText();
        out.append(String.format(Locale.ROOT, "job %s  %s  %s on %s  %s GPUs (%s x %s)%n", jobId, state,
                job.path("budget").asText("?"), cluster, job.path("gpus").asText("?"),
                job.path("replicas").asText("?"), job.path("gpusPerReplica").asText("?")));
        if (!job.path("seenByScheduler").asBoolean()) {
            out.append("The scheduler has not seen this job yet: it waits to be read (is the scheduler-service of ")
                    .append(cluster).append(" running?).\n");
        }
        if (present(queue)) {
            Instant asOf = Format.instant(queue.path("asOf"));
            if (present(queue.path("position"))) {
                out.append("Position ").append(queue.path("position").asInt()).append(" in the queue of ").append(cluster)
                        .append(" (scheduler's view ").append(Format.relative(asOf, now)).append(").\n");
            }
            if ("WAITING".equals(queue.path("state").asText())) {
                paragraph(out, "Expected start: " + expectedStart(job.path("expectedStart"), now), width);
            }
            paragraph(out, "Reason: " + queue.path("reason").asText(), width);
        } else if (state.equals("WAITING") && job.path("seenByScheduler").asBoolean()) {
            out.append("Not in the scheduler's latest queue snapshot yet (it publishes after each pass that changes it).\n");
        }
        List<Map<String, Object>> levels = levels(job, ratios);
        if (!levels.isEmpty()) {
            out.append("Ranked ahead of it (lower ratio = more under-served = first):\n");
            for (Map<String, Object> level : levels) {
                StringBuilder line = new StringBuilder("  among " + level.get("level") + ": ");
                @SuppressWarnings("unchecked")
                List<Map<String, Object>> ahead = (List<Map<String, Object>>) level.get("ahead");
                List<String> parts = new ArrayList<>();
                for (Map<String, Object> a : ahead) {
                    parts.add(a.get("account") + " " + ratio(a.get("ratio")));
                }
                line.append(String.join(", ", parts));
                line.append("; its own branch ").append(level.get("own")).append(' ').append(ratio(level.get("ownRatio")));
                paragraph(out, line.toString(), width, "    ");
            }
        }
        contract(out, job, now, width);
        if (present(job.path("rejection"))) {
            paragraph(out, "Rejected: " + job.path("rejection").path("reason").asText(job.path("rejection").toString()), width);
        }
        for (JsonNode p : job.path("preemptions")) {
            preemption(out, p, job.path("budget").asText(""), width);
        }
        return print(out.toString());
    }

    private static void contract(StringBuilder out, JsonNode job, Instant now, int width) {
        long min = job.path("minRuntimeSeconds").asLong(0);
        String kind = min == 0 ? "unallocated (minimum runtime 0: free, preemptible at any moment)"
                : "allocated, protected for " + Format.duration(Duration.ofSeconds(min)) + " after each start";
        StringBuilder c = new StringBuilder("Contract: " + kind + (job.path("resumable").asBoolean()
                ? ", resumable" : ", not resumable (a preemption loses all its work)") + ".");
        if ("RUNNING".equals(job.path("state").asText())) {
            Instant until = Format.instant(job.path("protectedUntil"));
            if (until != null && until.isAfter(now)) {
                c.append(" Protected until ").append(Format.clock(until)).append(" (").append(Format.relative(until, now))
                        .append("): nothing preempts it before.");
            } else {
                c.append(" Preemptible now: it keeps running while its account ranks above the work that waits.");
            }
        }
        paragraph(out, c.toString(), width);
    }

    private static void preemption(StringBuilder out, JsonNode p, String own, int width) {
        Instant at = Format.instant(p.path("at"));
        StringBuilder text = new StringBuilder("Preempted " + Format.clock(at) + " (" + p.path("reason").asText() + ")");
        if (present(p.path("preemptorJobId"))) {
            text.append(": displaced by job ").append(p.path("preemptorJobId").asText()).append(" of ")
                    .append(p.path("preemptorAccount").asText("?"));
        }
        Double mine = null;
        Double theirs = null;
        for (JsonNode r : p.path("ratios")) {
            String account = r.path("account").asText();
            Double value = present(r.path("ratio")) ? r.path("ratio").asDouble() : null;
            if (account.equals(own)) {
                mine = value;
            } else if (account.equals(p.path("preemptorAccount").asText())) {
                theirs = value;
            }
        }
        if (theirs != null || mine != null) {
            text.append("; ratio ").append(ratio(theirs)).append(" against its own ").append(ratio(mine));
            if (theirs != null && mine != null) {
                text.append(String.format(Locale.ROOT, ", margin %.2f", mine - theirs));
            }
        }
        double lost = p.path("lostGpuSeconds").asDouble(0);
        text.append(String.format(Locale.ROOT, "; work lost %s GPU-h", Format.hours(lost / 3600)));
        text.append(p.path("requeue").asBoolean() ? "; requeued." : "; not requeued.");
        if (present(p.path("explanation"))) {
            text.append(" ").append(p.path("explanation").asText());
        }
        paragraph(out, text.toString(), width);
    }

    /** The accounts ahead grouped by the level of the tree they compete at, with the job's own branch there. */
    static List<Map<String, Object>> levels(JsonNode job, Map<String, Double> ratios) {
        String own = job.path("budget").asText("");
        Map<String, List<Map<String, Object>>> byLevel = new LinkedHashMap<>();
        for (JsonNode a : job.path("queue").path("accountsAhead")) {
            String account = a.path("account").asText();
            int slash = account.lastIndexOf('/');
            String level = slash < 0 ? "(roots)" : account.substring(0, slash) + "/*";
            Map<String, Object> entry = new LinkedHashMap<>();
            entry.put("account", account);
            entry.put("ratio", present(a.path("ratio")) ? a.path("ratio").asDouble() : null);
            entry.put("chargedGpuHours", a.path("chargedGpuSeconds").asDouble() / 3600);
            entry.put("entitledGpuHours", a.path("entitledGpuSeconds").asDouble() / 3600);
            byLevel.computeIfAbsent(level, l -> new ArrayList<>()).add(entry);
        }
        List<Map<String, Object>> levels = new ArrayList<>();
        byLevel.forEach((level, ahead) -> {
            int depth = ((String) ahead.get(0).get("account")).split("/").length;
            String[] segments = own.split("/");
            String branch = String.join("/", java.util.Arrays.copyOf(segments, Math.min(depth, segments.length)));
            Map<String, Object> l = new LinkedHashMap<>();
            l.put("level", level);
            l.put("ahead", ahead);
            l.put("own", branch);
            l.put("ownRatio", ratios.get(branch));
            levels.add(l);
        });
        return levels;
    }

    /** Every account's ratio on the cluster, from GET /budgets. */
    static Map<String, Double> ratios(JsonNode budgets, String cluster) {
        Map<String, Double> ratios = new HashMap<>();
        for (JsonNode root : budgets.path("accounts")) {
            collect(root, cluster, ratios);
        }
        return ratios;
    }

    private static void collect(JsonNode account, String cluster, Map<String, Double> ratios) {
        JsonNode r = account.path("usage").path(cluster).path("ratio");
        if (present(r)) {
            ratios.put(account.path("path").asText(), r.asDouble());
        }
        account.path("children").forEach(child -> collect(child, cluster, ratios));
    }

    /** The expected start in words, with the time and what it rests on: "in 2h05m (12-02 14:05:00): from ...". */
    static String expectedStart(JsonNode start, Instant now) {
        String text = StartText.of(start, now);
        if (text.equals("-")) {
            return "not estimated yet (the scheduler refreshes its estimates every few seconds)";
        }
        Instant at = Format.instant(start.path("at"));
        String note = present(start.path("note")) ? start.path("note").asText() : null;
        return text + (at == null ? "" : " (" + Format.clock(at) + ")") + (note == null ? "" : ": " + note);
    }

    static boolean preemptible(JsonNode job, Instant now) {
        if (!"RUNNING".equals(job.path("state").asText())) {
            return false;
        }
        Instant until = Format.instant(job.path("protectedUntil"));
        return until == null || !until.isAfter(now);
    }

    private static String ratio(Object value) {
        return value == null ? "(ratio unknown)" : String.format(Locale.ROOT, "%.2f", ((Number) value).doubleValue());
    }

    private static String text(JsonNode node) {
        return present(node) ? node.asText() : null;
    }

    private static void paragraph(StringBuilder out, String text, int width) {
        paragraph(out, text, width, "  ");
    }

    private static void paragraph(StringBuilder out, String text, int width, String indent) {
        List<String> lines = Words.wrap(text, width);
        out.append(lines.get(0)).append('\n');
        if (lines.size() > 1) {
            String rest = String.join(" ", lines.subList(1, lines.size()));
            Words.wrap(rest, width - indent.length()).forEach(l -> out.append(indent).append(l).append('\n'));
        }
    }
}
