package dev.allot.cli.commands;

import com.fasterxml.jackson.databind.JsonNode;
import dev.allot.cli.ApiClient;
import dev.allot.cli.render.Format;
import dev.allot.cli.render.Table;
import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** sshare: the budget tree with shares, fractions, entitlement, usage, ratio and owed vs delivered. */
@Command(name = "shares", aliases = "sshare", mixinStandardHelpOptions = true,
        description = {"The budget tree (sshare): share, fraction of parent and of the cluster, entitled GPUs,",
                "charged and unallocated GPU-hours and ratio over the 7-day window, owed vs delivered GPU-hours."})
public final class SharesCommand extends ApiCommand {

    @Parameters(paramLabel = "SUBTREE", arity = "0..1", description = "Only this account and what is under it.")
    String subtree;

    @Option(names = {"-c", "--cluster"}, paramLabel = "CLUSTER", description = "Cluster; default the only one known, or $ALLOT_CLUSTER.")
    String cluster;

    @Override
    int execute(boolean json) {
        String on = Clusters.resolve(api(), cluster, globals.env());
        JsonNode body = subtree == null ? api().get("/budgets") : api().get("/budgets/" + ApiClient.encode(subtree));
        if (json) {
            Map<String, Object> out = new LinkedHashMap<>();
            out.put("cluster", on);
            out.put("tree", body);
            return printJson(out);
        }
        Table table = new Table().column("ACCOUNT").number("SHARE").number("OF PARENT").number("OF CLUSTER")
                .number("ENTITLED").number("CHARGED h").number("UNALLOC h").number("RATIO").number("OWED h")
                .number("DELIVERED h").column("DELIV/OWED");
        if (subtree == null) {
            body.path("accounts").forEach(root -> rows(table, root, on, 0));
        } else {
            rows(table, body, on, 0);
        }
        if (table.isEmpty()) {
            return print("no budget accounts yet (bin/allot budget put lab 1 defines one)\n");
        }
        return print("cluster " + on + ", " + capacity(on) + " GPUs; usage over the 7-day window, GPU-hours\n"
                + table.render(width()));
    }

    private String capacity(String on) {
        JsonNode gpus = api().get("/budgets").path("clusters").path(on);
        return gpus.isNumber() ? gpus.asText() : "?";
    }

    private static void rows(Table table, JsonNode a, String cluster, int depth) {
        JsonNode usage = a.path("usage").path(cluster);
        JsonNode owed = a.path("owed").path(cluster);
        JsonNode entitled = a.path("entitlement").path(cluster).path("gpus");
        table.row("  ".repeat(depth) + a.path("name").asText(a.path("path").asText()),
                trim(a.path("share").asDouble()), Format.percent(a.path("fractionOfParent")),
                Format.percent(a.path("fractionOfCluster")),
                entitled.isNumber() ? trim(entitled.asDouble()) : "-",
                Format.hours(usage.path("chargedGpuHours")), Format.hours(usage.path("unallocatedGpuHours")),
                Format.ratio(usage.path("ratio")), Format.hours(owed.path("owedGpuHours")),
                Format.hours(owed.path("deliveredGpuHours")), Format.percent(owed.path("deliveredOverOwed")));
        a.path("children").forEach(child -> rows(table, child, cluster, depth + 1));
    }

    static String trim(double v) {
        return v == Math.rint(v) ? String.valueOf((long) v) : String.format(java.util.Locale.ROOT, "%.2f", v);
    }
}
