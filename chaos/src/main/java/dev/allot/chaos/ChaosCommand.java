package dev.allot.chaos;

import dev.allot.edge.KafkaClients;
import dev.allot.edge.security.KafkaSecurity;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The Java half of {@code bin/allot chaos} (the script kills and restarts; this submits and judges):
 * <pre>
 *   submit --api URL --cluster C --teams A,B --rate R --seed S --acknowledged FILE --stop-file FILE
 *   check  --since MILLIS [--acknowledged FILE] [--recoveries FILE] [--settle SECONDS]
 * </pre>
 * {@code submit} posts jobs until the stop file exists (the token: ALLOT_TOKEN). {@code check} reads the log
 * (ALLOT_BOOTSTRAP, ALLOT_REGISTRY_URL, ALLOT_KAFKA_CONFIG) until every accepted job has its final verdict and the
 * usage sums agree, or the settle time is over, prints the report and exits 0 when the targets are met, 1 if not.
 */
public final class ChaosCommand {

    private ChaosCommand() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length == 0) {
            usage();
        }
        Map<String, String> options = options(Arrays.copyOfRange(args, 1, args.length));
        switch (args[0]) {
            case "submit" -> submit(options);
            case "check" -> System.exit(check(options, System.out) ? 0 : 1);
            default -> usage();
        }
    }

    private static void usage() {
        System.err.println("usage: chaos submit --api URL --cluster C --teams A,B --rate R --seed S --acknowledged FILE"
                + " --stop-file FILE | chaos check --since MILLIS [--acknowledged FILE] [--recoveries FILE] [--settle S]");
        System.exit(2);
    }

    private static Map<String, String> options(String[] args) {
        Map<String, String> out = new HashMap<>();
        for (int i = 0; i + 1 < args.length; i += 2) {
            if (!args[i].startsWith("--")) {
                usage();
            }
            out.put(args[i].substring(2), args[i + 1]);
        }
        return out;
    }

    private static String required(Map<String, String> options, String name) {
        String value = options.get(name);
        if (value == null) {
            System.err.println("chaos: --" + name + " is required");
            usage();
        }
        return value;
    }

    private static void submit(Map<String, String> o) throws Exception {
        String token = System.getenv("ALLOT_TOKEN");
        if (token == null || token.isBlank()) {
            System.err.println("chaos: ALLOT_TOKEN (a member of every team) is required");
            System.exit(2);
        }
        Path ackFile = Path.of(required(o, "acknowledged"));
        Path stopFile = Path.of(required(o, "stop-file"));
        SubmissionStream stream = new SubmissionStream(required(o, "api"), token, required(o, "cluster"),
                List.of(required(o, "teams").split(",")), Double.parseDouble(o.getOrDefault("rate", "2")),
                Long.parseLong(o.getOrDefault("seed", "14")), id -> append(ackFile, id));
        Thread thread = new Thread(stream, "chaos-submit");
        thread.start();
        while (!Files.exists(stopFile)) {
            thread.join(500);  // the script drops the stop file when the kills are done
        }
        stream.stop();
        thread.join();
        System.err.printf("chaos: %d submissions acknowledged, %d refused or unanswered%n",
                stream.acknowledged().size(), stream.refused());
    }

    private static synchronized void append(Path file, String line) {
        try {
            Files.writeString(file, line + "\n", StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** Reads and judges until settled (no stuck job, sums exact) or the settle time is over; prints the report. */
    static boolean check(Map<String, String> o, PrintStream out) throws IOException, InterruptedException {
        Instant since = Instant.ofEpochMilli(Long.parseLong(required(o, "since")));
        List<String> acknowledged = lines(o.get("acknowledged"));
        List<Recovery> recoveries = Recovery.parse(lines(o.get("recoveries")));
        long settleUntil = System.currentTimeMillis() + 1000L * Long.parseLong(o.getOrDefault("settle", "300"));
        KafkaClients clients = new KafkaClients(env("ALLOT_BOOTSTRAP", "127.0.0.1:9092"),
                env("ALLOT_REGISTRY_URL", "http://127.0.0.1:8080"), KafkaSecurity.fromEnvironment());
        LogReader reader = new LogReader(clients);
        ChaosReport report;
        while (true) {
            report = ChaosVerdict.judge(reader.read(), since, acknowledged, recoveries);
            boolean settled = report.stuck().isEmpty() && report.usageMismatches().isEmpty();
            if (settled || System.currentTimeMillis() >= settleUntil) {
                break;
            }
            System.err.printf("chaos: waiting for the log to settle: %d stuck, %d accounts' usage differ%n",
                    report.stuck().size(), report.usageMismatches().size());
            Thread.sleep(5000);  // a tool's polling interval, not a test's synchronisation
        }
        report.print(out);
        return report.targetsMet();
    }

    private static List<String> lines(String file) throws IOException {
        if (file == null || !Files.exists(Path.of(file))) {
            return List.of();
        }
        return Files.readAllLines(Path.of(file)).stream().map(String::strip).filter(l -> !l.isEmpty()).toList();
    }

    private static String env(String name, String fallback) {
        String value = System.getenv(name);
        return value == null || value.isBlank() ? fallback : value;
    }
}
