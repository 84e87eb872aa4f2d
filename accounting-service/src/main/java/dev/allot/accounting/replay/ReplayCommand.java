package dev.allot.accounting.replay;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.allot.accounting.book.Figures;
import dev.allot.accounting.book.Hours;
import dev.allot.accounting.book.Row;
import dev.allot.accounting.streams.AccountingStreamsMain;
import dev.allot.accounting.streams.AccountingTopics;
import java.io.PrintStream;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code bin/allot replay --from T --to T (--report owed|usage|job ID) [--json]}: a fresh projection
 * of the whole log, then one report. Progress goes to stderr, the report to stdout.
 */
@Command(name = "replay", mixinStandardHelpOptions = true,
        description = "Replays the event log from the beginning into a fresh accounting projection and prints a report.")
public final class ReplayCommand implements Callable<Integer> {

    @Option(names = "--bootstrap", defaultValue = "${env:ALLOT_BOOTSTRAP:-127.0.0.1:9092}", description = "Kafka bootstrap servers (${DEFAULT-VALUE}).")
    String bootstrap;
    @Option(names = "--registry", defaultValue = "${env:ALLOT_REGISTRY_URL:-http://127.0.0.1:8080}", description = "Schema registry (${DEFAULT-VALUE}).")
    String registry;
    @Option(names = "--from", required = true, description = "Start of the period: ISO-8601 instant or epoch ms.")
    String from;
    @Option(names = "--to", required = true, description = "End of the period (exclusive); also the as-of time of the rolling usage.")
    String to;
    @Option(names = "--report", required = true, arity = "1..2", paramLabel = "owed|usage|job ID",
            description = "owed: the owed-hours ledger; usage: rolling 7-day and period usage per account; job ID: one job's hours.")
    List<String> report;
    @Option(names = "--cluster", description = "Only this cluster.")
    String cluster;
    @Option(names = "--account", description = "Only this account (and, for usage, its subtree).")
    String account;
    @Option(names = "--json", description = "JSON instead of a text table.")
    boolean json;
    @Option(names = "--window", defaultValue = "P7D", description = "Lookback of the rolling usage (${DEFAULT-VALUE}).")
    Duration window;
    @Option(names = "--topics", hidden = true, description = "usage,budgets,node-status,account-demand,budget-usage,dead-letters")
    String topicList;

    public PrintStream out = System.out;
    public PrintStream err = System.err;

    public static void main(String[] args) {
        System.exit(new CommandLine(new ReplayCommand()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        long fromMs = time(from);
        long toMs = time(to);
        if (toMs <= fromMs) {
            throw new CommandLine.ParameterException(new CommandLine(this), "--to must be after --from");
        }
        String kind = report.get(0);
        if (!Set.of("owed", "usage", "job").contains(kind) || ("job".equals(kind) != (report.size() == 2))) {
            throw new CommandLine.ParameterException(new CommandLine(this), "--report owed | usage | job ID");
        }
        AccountingTopics topics = topicList == null ? AccountingTopics.catalogue() : AccountingStreamsMain.topics(topicList);
        Replay.Result r = new Replay(bootstrap, registry, topics, window.toMillis(), err)
                .run("job".equals(kind) ? report.get(1) : null);
        err.printf("replay: %,d records read, %,d booked, %,d rejected (malformed/invalid), %,d left out as dead-lettered too late, %.1f s%n",
                r.records(), r.booked(), r.rejected(), r.excludedTooLate(), r.took().toMillis() / 1000.0);
        Object result = switch (kind) {
            case "owed" -> owed(r, fromMs, toMs);
            case "usage" -> usage(r, fromMs, toMs);
            default -> job(r, report.get(1), fromMs, toMs);
        };
        if (json) {
            out.println(new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(result));
        }
        return 0;
    }

    private List<String> clusters(Replay.Result r) {
        TreeSet<String> all = new TreeSet<>(r.rows().accountsByCluster().keySet());
        all.addAll(r.capacity().keySet());
        if (cluster != null) {
            all.retainAll(Set.of(cluster));
        }
        return List.copyOf(all);
    }

    public record UsageLine(Figures.Usage rolling, double periodChargedGpuSeconds, double periodUnallocatedGpuSeconds) {
    }

    List<UsageLine> usage(Replay.Result r, long fromMs, long toMs) {
        List<UsageLine> lines = new ArrayList<>();
        for (String c : clusters(r)) {
            for (Figures.Usage u : r.view().tree(c, toMs)) {
                if (account != null && !u.account().equals(account) && !u.account().startsWith(account + "/")) {
                    continue;
                }
                double charged = 0;
                double free = 0;
                for (Figures.Hour h : r.view().history(c, u.account(), fromMs, toMs)) {
                    charged += h.chargedGpuSeconds();
                    free += h.unallocatedGpuSeconds();
                }
                lines.add(new UsageLine(u, charged, free));
            }
        }
        if (!json) {
            out.printf("Usage as of %s (rolling %s) and over [%s, %s)%n", Instant.ofEpochMilli(toMs), window,
                    Instant.ofEpochMilli(Hours.hourOf(fromMs)), Instant.ofEpochMilli(toMs));
            out.printf("%-12s %-40s %14s %14s %14s %8s %14s %14s%n", "cluster", "account", "7d charged h",
                    "7d free h", "7d entitled h", "ratio", "period chg h", "period free h");
            for (UsageLine l : lines) {
                Figures.Usage u = l.rolling();
                out.printf("%-12s %-40s %14.3f %14.3f %14s %8s %14.3f %14.3f%n", u.cluster(), u.account(),
                        u.chargedGpuSeconds() / 3600, u.unallocatedGpuSeconds() / 3600,
                        u.entitledGpuSeconds() == null ? "-" : String.format("%.3f", u.entitledGpuSeconds() / 3600),
                        u.ratio() == null ? "-" : String.format("%.4f", u.ratio()),
                        l.periodChargedGpuSeconds() / 3600, l.periodUnallocatedGpuSeconds() / 3600);
            }
        }
        return lines;
    }

    List<Figures.Ledger> owed(Replay.Result r, long fromMs, long toMs) {
        List<Figures.Ledger> ledgers = new ArrayList<>();
        for (String c : clusters(r)) {
            for (Figures.Usage u : r.view().tree(c, toMs)) {
                if (account == null || u.account().equals(account)) {
                    ledgers.add(r.view().ledger(c, u.account(), fromMs, toMs));
                }
            }
        }
        if (!json) {
            out.printf("Owed hours over [%s, %s): owed = min(entitled, demanded) per hour; delivered = charged%n",
                    Instant.ofEpochMilli(Hours.hourOf(fromMs)), Instant.ofEpochMilli(toMs));
            out.printf("%-12s %-40s %12s %12s %12s %12s %10s%n", "cluster", "account", "entitled h", "demanded h",
                    "owed h", "delivered h", "del/owed");
            for (Figures.Ledger l : ledgers) {
                out.printf("%-12s %-40s %12s %12.3f %12.3f %12.3f %10.4f%n", l.cluster(), l.account(),
                        l.entitlementKnown() ? String.format("%.3f", l.entitledGpuHours()) : "-", l.demandedGpuHours(),
                        l.owedGpuHours(), l.deliveredGpuHours(), l.deliveredOverOwed());
            }
        }
        return ledgers;
    }

    Map<String, Object> job(Replay.Result r, String jobId, long fromMs, long toMs) {
        List<Figures.Hour> hours = new ArrayList<>();
        double charged = 0;
        double free = 0;
        for (Map.Entry<Long, double[]> e : r.jobHours().entrySet()) {
            if (e.getKey() >= Hours.hourOf(fromMs) && e.getKey() < toMs) {
                hours.add(new Figures.Hour(e.getKey(), e.getValue()[Row.CHARGED], e.getValue()[Row.UNALLOCATED], 0));
                charged += e.getValue()[Row.CHARGED];
                free += e.getValue()[Row.UNALLOCATED];
            }
        }
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("jobId", jobId);
        result.put("chargedGpuSeconds", charged);
        result.put("unallocatedGpuSeconds", free);
        result.put("hours", hours);
        if (!json) {
            out.printf("Job %s over [%s, %s)%n", jobId, Instant.ofEpochMilli(Hours.hourOf(fromMs)), Instant.ofEpochMilli(toMs));
            out.printf("%-24s %14s %14s%n", "hour", "charged GPU-s", "free GPU-s");
            for (Figures.Hour h : hours) {
                out.printf("%-24s %14.1f %14.1f%n", Instant.ofEpochMilli(h.hourStart()), h.chargedGpuSeconds(),
                        h.unallocatedGpuSeconds());
            }
            out.printf("%-24s %14.1f %14.1f%n", "total", charged, free);
        }
        return result;
    }

    static long time(String value) {
        return value.chars().allMatch(Character::isDigit) ? Long.parseLong(value) : Instant.parse(value).toEpochMilli();
    }
}
