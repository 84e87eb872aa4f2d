package dev.allot.cli.commands;

import com.fasterxml.jackson.databind.JsonNode;
import dev.allot.cli.ApiClient;
import dev.allot.cli.Terminal;
import dev.allot.cli.render.Bar;
import dev.allot.cli.render.Format;
import dev.allot.cli.render.Words;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * A live full-screen view (like htop): budgets as bars of charged vs entitled vs owed, the queue with
 * reasons shortened at a word boundary to fit, and the nodes. Redraws every --interval; q or Ctrl-C leaves.
 */
@Command(name = "top", mixinStandardHelpOptions = true,
        description = {"A live full-screen view: budgets as bars (charged █, entitled ░, owed │), the queue with its",
                "reasons, the nodes. Redraws every --interval seconds; q or Ctrl-C leaves. --once prints one frame."})
public final class TopCommand extends ApiCommand {

    @Option(names = {"-c", "--cluster"}, paramLabel = "CLUSTER", description = "Cluster; default the only one known, or $ALLOT_CLUSTER.")
    String cluster;

    @Option(names = "--interval", paramLabel = "SECONDS", defaultValue = "2", description = "Seconds between frames (default ${DEFAULT-VALUE}).")
    double interval;

    @Option(names = "--once", description = "Print one frame without clearing the screen, and exit.")
    boolean once;

    @Option(names = "--height", paramLabel = "LINES", description = "Screen height; default $LINES or the terminal's.")
    Integer height;

    @Override
    int execute(boolean json) {
        String on = Clusters.resolve(api(), cluster, globals.env());
        if (json) {
            return printJson(data(on));
        }
        if (once) {
            return print(frame(data(on), on, width(), height == null ? Terminal.lines(globals.env()) : height, now()));
        }
        boolean raw = dev.allot.cli.TerminalKeys.raw();
        try {
            out().print("\u001b[?1049h\u001b[?25l"); // alternate screen, hide the cursor
            while (true) {
                String frame;
                try {
                    frame = frame(data(on), on, width(), height == null ? Terminal.lines(globals.env()) : height, now());
                } catch (dev.allot.cli.CliFailure unreachable) {
                    frame = "allot top: " + unreachable.getMessage() + "\n(retrying; q leaves)\n";
                }
                out().print("\u001b[H\u001b[2J" + frame.replace("\n", "\u001b[K\r\n"));
                out().flush();
                if (dev.allot.cli.TerminalKeys.quitWithin((long) (interval * 1000), raw)) {
                    return 0;
                }
            }
        } finally {
            out().print("\u001b[?25h\u001b[?1049l");
            out().flush();
            if (raw) {
                dev.allot.cli.TerminalKeys.restore();
            }
        }
    }

    private Map<String, Object> data(String on) {
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("cluster", on);
        data.put("budgets", api().get("/budgets"));
        data.put("queue", api().get("/queue?cluster=" + ApiClient.encode(on)));
        data.put("nodes", api().get("/nodes?cluster=" + ApiClient.encode(on)));
        return data;
    }

    /** One screen: as many lines of each section as the height allows (budgets, queue, nodes). */
    static String frame(Map<String, Object> data, String cluster, int width, int height, Instant now) {
        JsonNode budgets = (JsonNode) data.get("budgets");
        JsonNode queue = (JsonNode) data.get("queue");
        JsonNode nodes = ((JsonNode) data.get("nodes")).path("nodes");
        List<String> budgetLines = budgetLines(budgets, cluster, width);
        List<String> queueLines = queueLines(queue, width, now);
        List<String> nodeLines = nodeLines(nodes, width);
        int capacity = budgets.path("clusters").path(cluster).asInt(0);
        int waiting = 0;
        int running = 0;
        for (JsonNode e : queue.path("entries")) {
            if ("WAITING".equals(e.path("state").asText())) {
                waiting++;
            } else {
                running++;
            }
        }
        String header = String.format(Locale.ROOT, "allot top  %s  %d GPUs  %d running  %d waiting  %s  (q quits)",
                cluster, capacity, running, waiting, Format.clock(now));
        // 3 section titles + header + a blank line; the rest shared: queue first, then budgets, then nodes
        int room = Math.max(6, height - 5);
        // an empty section still takes its "(none)" line
        int forNodes = Math.max(1, Math.min(nodeLines.size(), Math.max(2, room / 4)));
        int forBudgets = Math.max(1, Math.min(budgetLines.size(), Math.max(2, room / 3)));
        int forQueue = Math.max(1, room - forNodes - forBudgets);
        StringBuilder out = new StringBuilder();
        out.append(Words.fit(header, width)).append("\n\n");
        section(out, "BUDGETS  charged █  entitled ░  owed │  (7-day window, GPU-hours)", budgetLines, forBudgets, width);
        section(out, "QUEUE", queueLines, forQueue, width);
        section(out, "NODES", nodeLines, forNodes, width);
        return out.toString();
    }

    private static void section(StringBuilder out, String title, List<String> lines, int room, int width) {
        out.append(Words.fit(title, width)).append('\n');
        if (lines.isEmpty()) {
            out.append("  (none)\n");
            return;
        }
        int shown = lines.size() <= room ? lines.size() : Math.max(0, room - 1);
        for (int i = 0; i < shown; i++) {
            out.append(lines.get(i)).append('\n');
        }
        if (shown < lines.size()) {
            out.append("  … ").append(lines.size() - shown).append(" more\n");
        }
    }

    static List<String> budgetLines(JsonNode budgets, String cluster, int width) {
        List<JsonNode> leaves = new ArrayList<>();
        budgets.path("accounts").forEach(a -> leaves(a, leaves));
        double scale = 1e-9;
        for (JsonNode a : leaves) {
            scale = Math.max(scale, Math.max(charged(a, cluster), Math.max(entitled(a, cluster), owed(a, cluster))));
        }
        int name = 4;
        for (JsonNode a : leaves) {
            name = Math.max(name, a.path("path").asText().length());
        }
        name = Math.min(name, Math.max(10, width / 3));
        int bar = Math.max(10, width - name - 34);
        List<String> lines = new ArrayList<>();
        for (JsonNode a : leaves) {
            String path = Words.fit(a.path("path").asText(), name);
            lines.add(String.format(Locale.ROOT, "  %-" + name + "s %s %7s/%-7s ratio %s", path,
                    Bar.of(charged(a, cluster), entitled(a, cluster), owed(a, cluster), scale, bar),
                    Format.hours(charged(a, cluster)), Format.hours(entitled(a, cluster)),
                    Format.ratio(a.path("usage").path(cluster).path("ratio"))));
        }
        return lines;
    }

    private static void leaves(JsonNode a, List<JsonNode> out) {
        if (a.path("children").isEmpty()) {
            out.add(a);
        }
        a.path("children").forEach(c -> leaves(c, out));
    }

    private static double charged(JsonNode a, String cluster) {
        return a.path("usage").path(cluster).path("chargedGpuHours").asDouble(0);
    }

    private static double entitled(JsonNode a, String cluster) {
        return a.path("usage").path(cluster).path("entitledGpuHours").asDouble(
                a.path("owed").path(cluster).path("entitledGpuHours").asDouble(0));
    }

    private static double owed(JsonNode a, String cluster) {
        return a.path("owed").path(cluster).path("owedGpuHours").asDouble(0);
    }

    static List<String> queueLines(JsonNode queue, int width, Instant now) {
        List<String> lines = new ArrayList<>();
        int id = 8;
        int account = 8;
        for (JsonNode e : queue.path("entries")) {
            id = Math.max(id, e.path("jobId").asText().length());
            account = Math.max(account, e.path("account").asText().length());
        }
        id = Math.min(id, 36);
        account = Math.min(account, 24);
        for (JsonNode e : queue.path("entries")) {
            String pos = present(e.path("position")) ? "#" + e.path("position").asInt() : "run";
            String start = StartText.compact(StartText.fromQueue(e, queue), now);
            String head = String.format(Locale.ROOT, "  %-4s %-" + id + "s %-" + account + "s %4d  %-7s ", pos,
                    Words.fit(e.path("jobId").asText(), id), Words.fit(e.path("account").asText(), account),
                    e.path("gpus").asInt(), start);
            // the reason gets what is left of the line, shortened at a word boundary, never mid-word
            lines.add(head + Words.fit(e.path("reason").asText(), Math.max(8, width - head.length())));
        }
        return lines;
    }

    static List<String> nodeLines(JsonNode nodes, int width) {
        List<String> lines = new ArrayList<>();
        for (JsonNode n : nodes) {
            int gpus = n.path("gpus").asInt();
            int used = n.path("usedGpus").asInt();
            StringBuilder cells = new StringBuilder();
            for (int i = 0; i < gpus && i < 32; i++) {
                cells.append(i < used ? '■' : '□');
            }
            String line = String.format(Locale.ROOT, "  %-20s %-8s %s %d/%d", Words.fit(n.path("nodeId").asText(), 20),
                    n.path("state").asText(), cells, used, gpus);
            if (present(n.path("drain")) && present(n.path("drain").path("reason"))) {
                line += "  " + n.path("drain").path("reason").asText();
            }
            lines.add(Words.fit(line, width));
        }
        return lines;
    }
}
