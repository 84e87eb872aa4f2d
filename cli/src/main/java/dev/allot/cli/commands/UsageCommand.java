package dev.allot.cli.commands;

import com.fasterxml.jackson.databind.JsonNode;
import dev.allot.cli.ApiClient;
import dev.allot.cli.render.Chart;
import dev.allot.cli.render.Format;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** An account's hourly charged / unallocated / entitled / owed GPU-hours as a small terminal chart. */
@Command(name = "usage", mixinStandardHelpOptions = true,
        description = {"A team's (or any account's) hourly charged, unallocated, entitled and owed GPU-hours over",
                "the last --days days as a small terminal chart, with the period's totals."})
public final class UsageCommand extends ApiCommand {

    private static final DateTimeFormatter DAY = DateTimeFormatter.ofPattern("MM-dd HH:00", Locale.ROOT);

    @Parameters(paramLabel = "TEAM", description = "Budget account (sums what is under it).")
    String account;

    @Option(names = "--days", paramLabel = "D", defaultValue = "7", description = "1 to 7 days (default ${DEFAULT-VALUE}).")
    int days;

    @Option(names = {"-c", "--cluster"}, paramLabel = "CLUSTER", description = "Cluster; default the only one known, or $ALLOT_CLUSTER.")
    String cluster;

    @Option(names = "--height", paramLabel = "ROWS", defaultValue = "8", description = "Chart height in rows (default ${DEFAULT-VALUE}).")
    int height;

    @Override
    int execute(boolean json) {
        if (days < 1 || days > 7) {
            throw dev.allot.cli.CliFailure.usage("--days must be between 1 and 7 (the lookback window), not " + days);
        }
        String on = Clusters.resolve(api(), cluster, globals.env());
        Map<String, Object> q = new LinkedHashMap<>();
        q.put("cluster", on);
        q.put("days", days);
        JsonNode usage = api().get("/usage/" + ApiClient.encode(account) + ApiClient.query(q));
        if (json) {
            return printJson(usage);
        }
        JsonNode hours = usage.path("hours");
        int n = hours.size();
        double[] charged = new double[n];
        double[] unallocated = new double[n];
        double[] entitled = usage.path("entitlementKnown").asBoolean() ? new double[n] : null;
        double[] owed = new double[n];
        for (int i = 0; i < n; i++) {
            JsonNode h = hours.get(i);
            charged[i] = h.path("chargedGpuHours").asDouble();
            unallocated[i] = h.path("unallocatedGpuHours").asDouble();
            if (entitled != null) {
                entitled[i] = h.path("entitledGpuHours").asDouble();
            }
            owed[i] = h.path("owedGpuHours").asDouble();
        }
        String first = n == 0 ? "" : DAY.format(Instant.parse(hours.get(0).path("hour").asText()).atZone(ZoneId.systemDefault()));
        StringBuilder out = new StringBuilder();
        dev.allot.cli.render.Words.wrap(String.format(Locale.ROOT, "%s on %s, last %d days (hourly, GPUs)", account, on,
                days), width()).forEach(l -> out.append(l).append('\n'));
        out.append(Chart.render(charged, unallocated, entitled, owed, first, "now", width(), Math.max(3, height)));
        String totals = String.format(Locale.ROOT, "charged %s GPU-h, unallocated %s, entitled %s, owed %s, delivered %s (%s of owed)",
                Format.hours(usage.path("deliveredGpuHours")), Format.hours(usage.path("unallocatedGpuHours")),
                usage.path("entitlementKnown").asBoolean() ? Format.hours(usage.path("entitledGpuHours")) : "unknown",
                Format.hours(usage.path("owedGpuHours")), Format.hours(usage.path("deliveredGpuHours")),
                Format.percent(usage.path("deliveredOverOwed")));
        dev.allot.cli.render.Words.wrap(totals, width()).forEach(l -> out.append(l).append('\n'));
        return print(out.toString());
    }
}
