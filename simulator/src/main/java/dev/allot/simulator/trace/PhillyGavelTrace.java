package dev.allot.simulator.trace;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Reads the Philly-derived per-team traces published by Gavel ({@code <vc>.trace}, one file per
 * team, 7 tab-separated fields) with {@code simulation_throughputs.json} from the same directory.
 *
 * <p>Duration rule: seconds = total_steps / throughput, throughput =
 * {@code throughputs["v100"]["('<job_type>', <scale_factor>)"]["null"]}; when that pair has no entry
 * the 1-GPU entry of the job type is used. Rounded up to whole seconds, at least 1 s.
 *
 * <p>Gang shape on nodes of {@code gpusPerNode} GPUs: a job of at most one node's GPUs is one
 * replica; a larger one is split into the fewest replicas r (r at least ceil(gpus/gpusPerNode))
 * that divide its GPUs evenly (16 = 2x8, 12 = 2x6, 20 = 4x5, 24 = 3x8, 64 = 8x8).
 *
 * <p>Job ids are {@code <vc>-<line number from 1>}; the team is the VC id (the file name).
 */
public final class PhillyGavelTrace {
    public static final String THROUGHPUTS = "simulation_throughputs.json";

    private final Map<String, Double> v100;

    public PhillyGavelTrace(Map<String, Double> v100Throughputs) {
        this.v100 = v100Throughputs;
    }

    /** Loads the throughputs of {@code dir/simulation_throughputs.json} ("v100", key "null"). */
    @SuppressWarnings("unchecked")
    public static PhillyGavelTrace withThroughputs(Path json) {
        try {
            Map<String, Object> root = (Map<String, Object>) MiniJson.parse(Files.readString(json));
            Map<String, Object> gpu = (Map<String, Object>) root.get("v100");
            if (gpu == null) {
                throw new IllegalArgumentException(json + " has no \"v100\" entry");
            }
            Map<String, Double> t = new LinkedHashMap<>();
            for (Map.Entry<String, Object> e : gpu.entrySet()) {
                Object inner = e.getValue();
                if (inner instanceof Map<?, ?> m && m.get("null") instanceof Double d) {
                    t.put(e.getKey(), d);
                }
            }
            return new PhillyGavelTrace(t);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Reads a directory of {@code *.trace} files (sorted by name) or a single trace file. */
    public static List<TraceJob> read(Path dirOrFile, int gpusPerNode) {
        Path dir = Files.isDirectory(dirOrFile) ? dirOrFile : dirOrFile.toAbsolutePath().getParent();
        PhillyGavelTrace reader = withThroughputs(dir.resolve(THROUGHPUTS));
        List<Path> files = new ArrayList<>();
        if (Files.isDirectory(dirOrFile)) {
            try (Stream<Path> s = Files.list(dirOrFile)) {
                s.filter(p -> p.getFileName().toString().endsWith(".trace")).sorted().forEach(files::add);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        } else {
            files.add(dirOrFile);
        }
        if (files.isEmpty()) {
            throw new IllegalArgumentException("no *.trace file in " + dirOrFile);
        }
        List<TraceJob> jobs = new ArrayList<>();
        for (Path f : files) {
            String team = f.getFileName().toString().replaceFirst("\\.trace$", "");
            try {
                jobs.addAll(reader.parse(team, Files.readAllLines(f, StandardCharsets.UTF_8), gpusPerNode));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return jobs;
    }

    /** Parses the lines of one team's trace. */
    public List<TraceJob> parse(String team, List<String> lines, int gpusPerNode) {
        List<TraceJob> jobs = new ArrayList<>(lines.size());
        int n = 0;
        for (String line : lines) {
            n++;
            if (line.isBlank()) {
                continue;
            }
            String[] f = line.split("\t", -1);
            if (f.length < 7) {
                throw new IllegalArgumentException(team + " line " + n + ": expected 7 tab-separated fields, got "
                        + f.length);
            }
            String jobType = f[0];
            long steps = Long.parseLong(f[4].trim());
            long arrival = (long) Math.floor(Double.parseDouble(f[5].trim()));
            int gpus = Integer.parseInt(f[6].trim());
            long duration = durationSeconds(jobType, gpus, steps);
            int[] shape = gangShape(gpus, gpusPerNode);
            jobs.add(new TraceJob(team + "-" + n, team, arrival, shape[1], shape[0], duration, -1, null, false));
        }
        return jobs;
    }

    /** total_steps / throughput of (job type, GPUs), falling back to the 1-GPU entry. */
    public long durationSeconds(String jobType, int gpus, long steps) {
        Double thr = v100.get(key(jobType, gpus));
        if (thr == null) {
            thr = v100.get(key(jobType, 1));
        }
        if (thr == null || thr <= 0) {
            throw new IllegalArgumentException("no throughput for " + key(jobType, gpus) + " nor its 1-GPU entry");
        }
        return Math.max(1, (long) Math.ceil(steps / thr - 1e-9));
    }

    static String key(String jobType, int gpus) {
        return "('" + jobType + "', " + gpus + ")";
    }

    /** {replicas, gpusPerReplica}. */
    public static int[] gangShape(int gpus, int gpusPerNode) {
        if (gpus <= gpusPerNode) {
            return new int[] {1, gpus};
        }
        for (int r = (gpus + gpusPerNode - 1) / gpusPerNode; r <= gpus; r++) {
            if (gpus % r == 0) {
                return new int[] {r, gpus / r};
            }
        }
        return new int[] {gpus, 1};
    }
}
