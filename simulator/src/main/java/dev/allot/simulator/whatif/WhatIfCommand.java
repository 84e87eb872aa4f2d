package dev.allot.simulator.whatif;

import dev.allot.core.SchedulerConfig;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.allot.simulator.policy.Policies;
import dev.allot.simulator.report.HtmlReport;
import dev.allot.simulator.report.SummaryJson;
import dev.allot.simulator.scenario.BudgetFile;
import dev.allot.simulator.trace.SyntheticTrace;
import java.io.BufferedWriter;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code allot whatif}: the last days of the recorded log replayed through the simulator with the tree as it was
 * and with proposed share changes (and optionally another policy), per team before and after.
 * Exit codes: 0 done, 2 bad usage (the message names the option), 3 the broker or registry did not answer.
 */
@Command(name = "whatif", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Replay the last days of the recorded log with the tree as it was and with proposed share changes.")
public final class WhatIfCommand implements Callable<Integer> {

    static final double MAX_DAYS = 3650;

    @Option(names = "--days", defaultValue = "7", description = "Days of the log before --until to replay (default: ${DEFAULT-VALUE}).")
    double days;

    @Option(names = "--until", paramLabel = "INSTANT", description = "End of the window, ISO-8601 (default: now).")
    String until;

    @Option(names = "--set", paramLabel = "ACCOUNT=SHARE", description = "A proposed share (repeatable), e.g. --set lab/vision=2.")
    List<String> sets = new ArrayList<>();

    @Option(names = "--budgets", paramLabel = "FILE", description = "Proposed shares, YAML or JSON: {lab/vision: 2, lab/robotics: 3}.")
    Path budgetsFile;

    @Option(names = "--policy", defaultValue = "budget",
            description = "Policy of the proposed run: budget, priority, quota, fairshare-decay (default: ${DEFAULT-VALUE}).")
    String policy;

    @Option(names = "--cluster", description = "Cluster to replay (default: the only one on the log).")
    String cluster;

    @Option(names = "--bootstrap", defaultValue = "127.0.0.1:9092", description = "Kafka bootstrap servers (default: ${DEFAULT-VALUE}).")
    String bootstrap;

    @Option(names = "--registry", defaultValue = "http://127.0.0.1:8080", description = "Schema registry URL (default: ${DEFAULT-VALUE}).")
    String registry;

    @Option(names = "--kafka-config", paramLabel = "FILE", description = "Kafka client properties (security.protocol, sasl.*, ssl.*).")
    Path kafkaConfig;

    @Option(names = {"-o", "--output"}, defaultValue = "table", description = "table | json (default: ${DEFAULT-VALUE}).")
    String output;

    @Option(names = "--out", paramLabel = "DIR", description = "Write report.html, summary.json, details.json, whatif.json and trace.csv here.")
    Path out;

    @Option(names = "--width", defaultValue = "0", description = "Table width (default: $COLUMNS, else 120).")
    int width;

    @Option(names = "--lookback-days", defaultValue = "7", description = "The scheduler's fair-share window (default: ${DEFAULT-VALUE}).")
    double lookbackDays;

    @Option(names = "--checkpoint-minutes", defaultValue = "30", description = "Resumable jobs checkpoint this often in the replay (default: ${DEFAULT-VALUE}).")
    double checkpointMinutes;

    @Option(names = "--preemption-margin", defaultValue = "" + SchedulerConfig.DEFAULT_PREEMPTION_MARGIN, description = "Budget policy's preemption margin (default: ${DEFAULT-VALUE}).")
    double preemptionMargin;

    @Option(names = "--timeout-seconds", defaultValue = "15", description = "How long to wait for the broker (default: ${DEFAULT-VALUE}).")
    long timeoutSeconds;

    PrintStream stdout = System.out;
    PrintStream stderr = System.err;
    /** The time "now" (tests fix it). */
    Instant now = Instant.now();

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    /** Runs the command with these streams (for callers in the same JVM, e.g. the end-to-end test); the exit code. */
    public static int run(PrintStream out, java.io.PrintWriter err, String... args) {
        WhatIfCommand command = new WhatIfCommand();
        command.stdout = out;
        CommandLine cl = commandLine(command);
        cl.setErr(err);
        return cl.execute(args);
    }

    /** The command, with bad input as one line and exit 2, an unreachable broker as one line and exit 3. */
    public static CommandLine commandLine() {
        return commandLine(new WhatIfCommand());
    }

    static CommandLine commandLine(WhatIfCommand command) {
        CommandLine cl = new CommandLine(command);
        // bin/allot passes the stack's --bootstrap/--registry first; the user's own come later and win
        cl.setOverwrittenOptionsAllowed(true);
        cl.setExecutionExceptionHandler((ex, cmd, parsed) -> {
            if (ex instanceof KafkaLog.Unreachable) {
                cmd.getErr().println("whatif: " + ex.getMessage());
                return 3;
            }
            if (ex instanceof IllegalArgumentException || ex instanceof java.io.IOException
                    || ex instanceof java.io.UncheckedIOException) {
                cmd.getErr().println("whatif: " + ex.getMessage());
                return 2;
            }
            throw ex;
        });
        return cl;
    }

    @Override
    public Integer call() throws Exception {
        // everything that can be checked without the log, first
        if (!(days > 0 && days <= MAX_DAYS)) {
            throw new IllegalArgumentException("--days must be a number of days > 0 and at most " + (int) MAX_DAYS
                    + ", got " + days);
        }
        Instant to = until == null ? now : parseInstant(until);
        if (!Policies.ALL.contains(policy)) {
            throw new IllegalArgumentException("--policy " + policy + ": unknown; known: " + String.join(", ", Policies.ALL));
        }
        if (!output.equals("table") && !output.equals("json")) {
            throw new IllegalArgumentException("-o " + output + ": must be table or json");
        }
        if (!(lookbackDays > 0) || !(checkpointMinutes > 0) || preemptionMargin < 0) {
            throw new IllegalArgumentException("--lookback-days and --checkpoint-minutes must be > 0, --preemption-margin >= 0");
        }
        if (timeoutSeconds <= 0) {
            throw new IllegalArgumentException("--timeout-seconds must be > 0, got " + timeoutSeconds);
        }
        if (budgetsFile != null && !Files.isRegularFile(budgetsFile)) {
            throw new IllegalArgumentException("--budgets " + budgetsFile + ": no such file");
        }
        if (kafkaConfig != null && !Files.isRegularFile(kafkaConfig)) {
            throw new IllegalArgumentException("--kafka-config " + kafkaConfig + ": no such file");
        }
        ShareChanges changes = ShareChanges.parse(sets, budgetsFile);
        Map<String, Object> clientProperties = KafkaLog.properties(kafkaConfig);

        long wallStart = System.nanoTime();
        KafkaLog log = new KafkaLog(bootstrap, registry, clientProperties, Duration.ofSeconds(timeoutSeconds));
        LogTrace recorded = log.read();
        String c = cluster != null ? cluster : onlyCluster(recorded);
        long toMs = to.toEpochMilli();
        long fromMs = toMs - Math.round(days * 86_400_000L);
        LogTrace.Trace trace = recorded.build(c, fromMs, toMs);
        BudgetFile proposed = changes.applyTo(trace.budgets());
        WhatIf.Outcome outcome = WhatIf.run(trace, days, proposed, policy,
                new WhatIf.Settings(lookbackDays, checkpointMinutes, preemptionMargin));
        double wall = (System.nanoTime() - wallStart) / 1e9;

        WhatIfView view = new WhatIfView(outcome, c, Instant.ofEpochMilli(fromMs), to, changes, log.skipped());
        if (output.equals("json")) {
            stdout.println(json(view));
        } else {
            stdout.print(view.table(width > 0 ? width : terminalWidth()));
        }
        if (out != null) {
            write(outcome, view, wall);
            if (output.equals("table")) {
                stdout.println("report: " + out.resolve("report.html"));
            }
        }
        return 0;
    }

    private void write(WhatIf.Outcome outcome, WhatIfView view, double wall) throws Exception {
        Files.createDirectories(out);
        var runs = List.of(outcome.before().result(), outcome.after().result());
        var base = outcome.before().scenario();
        Files.writeString(out.resolve("summary.json"), SummaryJson.summary(base, wall, runs));
        Files.writeString(out.resolve("details.json"), SummaryJson.details(base, runs, List.of()));
        Files.writeString(out.resolve("report.html"), HtmlReport.render(base, wall, runs, List.of()));
        Files.writeString(out.resolve("whatif.json"), json(view) + "\n");
        try (BufferedWriter w = Files.newBufferedWriter(out.resolve("trace.csv"), StandardCharsets.UTF_8)) {
            SyntheticTrace.writeCsv(outcome.trace().jobs(), w);
        }
    }

    private static String json(WhatIfView view) throws Exception {
        return new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(view.json());
    }

    private static String onlyCluster(LogTrace recorded) {
        List<String> clusters = recorded.clusters();
        if (clusters.size() == 1) {
            return clusters.get(0);
        }
        if (clusters.isEmpty()) {
            throw new IllegalArgumentException("the log holds no node and no job: nothing to replay (is --bootstrap the"
                    + " cluster's broker?)");
        }
        throw new IllegalArgumentException("the log holds several clusters (" + String.join(", ", clusters)
                + "): name one with --cluster");
    }

    private static Instant parseInstant(String s) {
        try {
            return Instant.parse(s);
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException("--until " + s + ": not an ISO-8601 instant (e.g. 2026-12-01T00:00:00Z)");
        }
    }

    private static int terminalWidth() {
        String cols = System.getenv("COLUMNS");
        try {
            int w = cols == null ? 0 : Integer.parseInt(cols.trim());
            return w > 20 ? w : 120;
        } catch (NumberFormatException e) {
            return 120;
        }
    }
}
