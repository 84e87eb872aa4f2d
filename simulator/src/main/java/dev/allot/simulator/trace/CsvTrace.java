package dev.allot.simulator.trace;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Allot's own trace format: a CSV file with a header naming at least
 * {@code job_id,team,submit_s,gpus_per_replica,replicas,duration_s,min_runtime_s,resumable,kind}
 * in any order; extra columns are ignored. {@code min_runtime_s} and {@code resumable} may be
 * empty (the scenario's contract rule then decides). {@code kind} is {@code debug} for a debug
 * job, anything else (e.g. {@code train}) for a regular job. Lines starting with '#' are comments.
 * A directory means every {@code *.csv} in it, sorted by name.
 */
public final class CsvTrace {
    public static final List<String> COLUMNS = List.of("job_id", "team", "submit_s", "gpus_per_replica", "replicas",
            "duration_s", "min_runtime_s", "resumable", "kind");

    private CsvTrace() {
    }

    public static List<TraceJob> read(Path dirOrFile) {
        List<Path> files = new ArrayList<>();
        if (Files.isDirectory(dirOrFile)) {
            try (Stream<Path> s = Files.list(dirOrFile)) {
                s.filter(p -> p.getFileName().toString().endsWith(".csv")).sorted().forEach(files::add);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        } else {
            files.add(dirOrFile);
        }
        List<TraceJob> jobs = new ArrayList<>();
        for (Path f : files) {
            try (BufferedReader r = Files.newBufferedReader(f, StandardCharsets.UTF_8)) {
                jobs.addAll(parse(r, f.toString()));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return jobs;
    }

    public static List<TraceJob> parse(BufferedReader r, String name) throws IOException {
        String header = null;
        String line;
        int n = 0;
        while ((line = r.readLine()) != null) {
            n++;
            if (!line.isBlank() && !line.startsWith("#")) {
                header = line;
                break;
            }
        }
        if (header == null) {
            return List.of();
        }
        String[] h = header.split(",", -1);
        Map<String, Integer> col = new HashMap<>();
        for (int i = 0; i < h.length; i++) {
            col.put(h[i].trim().toLowerCase(Locale.ROOT), i);
        }
        for (String c : COLUMNS) {
            if (!col.containsKey(c)) {
                throw new IllegalArgumentException(name + ": header lacks column " + c);
            }
        }
        int cId = col.get("job_id");
        int cTeam = col.get("team");
        int cSubmit = col.get("submit_s");
        int cGpr = col.get("gpus_per_replica");
        int cRep = col.get("replicas");
        int cDur = col.get("duration_s");
        int cMin = col.get("min_runtime_s");
        int cRes = col.get("resumable");
        int cKind = col.get("kind");
        List<TraceJob> jobs = new ArrayList<>();
        while ((line = r.readLine()) != null) {
            n++;
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            String[] f = line.split(",", -1);
            try {
                String min = f[cMin].trim();
                String res = f[cRes].trim().toLowerCase(Locale.ROOT);
                Boolean resumable = res.isEmpty() ? null : (res.equals("true") || res.equals("1") || res.equals("yes"));
                jobs.add(new TraceJob(f[cId].trim(), f[cTeam].trim(), (long) Math.floor(Double.parseDouble(f[cSubmit].trim())),
                        Integer.parseInt(f[cGpr].trim()), Integer.parseInt(f[cRep].trim()),
                        Math.max(1, (long) Math.ceil(Double.parseDouble(f[cDur].trim()))),
                        min.isEmpty() ? -1 : (long) Math.ceil(Double.parseDouble(min)), resumable,
                        f[cKind].trim().equalsIgnoreCase("debug")));
            } catch (RuntimeException e) {
                throw new IllegalArgumentException(name + " line " + n + ": " + e.getMessage(), e);
            }
        }
        return jobs;
    }
}
