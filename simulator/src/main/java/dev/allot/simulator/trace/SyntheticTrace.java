package dev.allot.simulator.trace;

import dev.allot.simulator.scenario.Seeds;
import java.io.IOException;
import java.io.Writer;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * A synthetic trace shaped like Philly's, for scale tests: {@code n} jobs over the period, spread
 * over {@code teams} teams ({@code team-001}...) with Zipf-like weights (team k gets weight
 * 1/k^0.8), arrivals uniform over the period, GPUs 1 (55%), 2 (10%), 4 (12%), 8 (15%), 16 (5%),
 * 32 (2%), 64 (1%) as whole 8-GPU nodes beyond 8, durations log-uniform between 2 minutes and
 * 12 hours. No contract: the scenario's rule gives one. Seeded: same (n, teams, period, seed),
 * same trace.
 */
public final class SyntheticTrace {
    private static final int[] GPUS = {1, 2, 4, 8, 16, 32, 64};
    private static final double[] CUM = {0.55, 0.65, 0.77, 0.92, 0.97, 0.99, 1.0};

    private SyntheticTrace() {
    }

    public static List<TraceJob> generate(int n, int teams, long periodSeconds, long seed, int gpusPerNode) {
        SplittableRandom r = Seeds.random(seed, "synthetic", n + "/" + teams);
        double[] cumTeam = new double[teams];
        double sum = 0;
        for (int k = 0; k < teams; k++) {
            sum += 1.0 / Math.pow(k + 1, 0.8);
            cumTeam[k] = sum;
        }
        double lo = Math.log(120);
        double hi = Math.log(12 * 3600);
        List<TraceJob> jobs = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            double u = r.nextDouble() * sum;
            int team = 0;
            while (cumTeam[team] < u) {
                team++;
            }
            double g = r.nextDouble();
            int k = 0;
            while (CUM[k] < g) {
                k++;
            }
            int gpus = GPUS[k];
            int[] shape = PhillyGavelTrace.gangShape(gpus, gpusPerNode);
            long submit = (long) (r.nextDouble() * periodSeconds);
            long duration = Math.max(1, (long) Math.exp(lo + r.nextDouble() * (hi - lo)));
            jobs.add(new TraceJob(String.format("s%07d", i + 1), String.format("team-%03d", team + 1), submit, shape[1],
                    shape[0], duration, -1, null, false));
        }
        return jobs;
    }

    /** Writes jobs in Allot's CSV trace format (empty contract columns stay empty). */
    public static void writeCsv(List<TraceJob> jobs, Writer w) throws IOException {
        w.write(String.join(",", CsvTrace.COLUMNS));
        w.write('\n');
        for (TraceJob j : jobs) {
            w.write(j.jobId() + "," + j.team() + "," + j.submitSeconds() + "," + j.gpusPerReplica() + "," + j.replicas()
                    + "," + j.durationSeconds() + "," + (j.minRuntimeSeconds() < 0 ? "" : j.minRuntimeSeconds()) + ","
                    + (j.resumable() == null ? "" : j.resumable()) + "," + (j.debug() ? "debug" : "train") + "\n");
        }
    }
}
