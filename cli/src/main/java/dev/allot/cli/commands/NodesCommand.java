package dev.allot.cli.commands;

import com.fasterxml.jackson.databind.JsonNode;
import dev.allot.cli.ApiClient;
import dev.allot.cli.render.Format;
import dev.allot.cli.render.Table;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** sinfo: nodes with GPUs free and used, drain state (who, why) and loss, per cluster. */
@Command(name = "nodes", aliases = "sinfo", mixinStandardHelpOptions = true,
        description = "Nodes (sinfo): state (UP, DRAINING, DRAINED, UNREACHABLE: silent a while, no new work; LOST), GPUs total / used / free, last heartbeat,"
                + " running jobs, and who drains it and why.")
public final class NodesCommand extends ApiCommand {

    @Option(names = {"-c", "--cluster"}, paramLabel = "CLUSTER", description = "Only this cluster.")
    String cluster;

    @Override
    int execute(boolean json) {
        JsonNode body = api().get("/nodes" + ApiClient.query(cluster == null ? Map.of() : Map.of("cluster", cluster)));
        if (json) {
            return printJson(body);
        }
        JsonNode nodes = body.path("nodes");
        if (nodes.isEmpty()) {
            return print("no nodes registered" + (cluster == null ? "" : " on " + cluster)
                    + " (a node-agent registers its nodes when it starts)\n");
        }
        Instant now = now();
        Map<String, int[]> totals = new TreeMap<>();
        Table table = new Table().column("NODE").column("CLUSTER").column("STATE").number("GPUS").number("USED")
                .number("FREE").column("HEARTBEAT").column("JOBS / DRAIN");
        for (JsonNode n : nodes) {
            int[] t = totals.computeIfAbsent(n.path("cluster").asText(), c -> new int[6]);
            t[0] += n.path("gpus").asInt();
            t[1] += n.path("usedGpus").asInt();
            t[2] += n.path("freeGpus").asInt();
            t[3] += n.path("draining").asBoolean() ? 1 : 0;
            t[4] += n.path("lost").asBoolean() ? 1 : 0;
            t[5] += n.path("unreachable").asBoolean() ? 1 : 0;
            List<String> notes = new ArrayList<>();
            n.path("jobs").fieldNames().forEachRemaining(job -> notes.add(job + "(" + n.path("jobs").path(job).asInt() + ")"));
            JsonNode drain = n.path("drain");
            if (present(drain)) {
                notes.add("drain by " + drain.path("requestedBy").asText()
                        + (present(drain.path("reason")) ? " (" + drain.path("reason").asText() + ")" : "")
                        + " " + Format.relative(Format.instant(drain.path("requestedAt")), now));
            }
            table.row(n.path("nodeId").asText(), n.path("cluster").asText(), n.path("state").asText(),
                    n.path("gpus").asInt(), n.path("usedGpus").asInt(), n.path("freeGpus").asInt(),
                    Format.relative(Format.instant(n.path("lastHeartbeatAt")), now),
                    notes.isEmpty() ? "-" : String.join(" ", notes));
        }
        StringBuilder out = new StringBuilder();
        totals.forEach((c, t) -> out.append(String.format(java.util.Locale.ROOT,
                "%s: %d GPUs, %d used, %d free; %d draining, %d unreachable, %d lost%n", c, t[0], t[1], t[2], t[3],
                t[5], t[4])));
        out.append(table.render(width()));
        return print(out.toString());
    }
}
