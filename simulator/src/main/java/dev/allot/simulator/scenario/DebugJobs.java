package dev.allot.simulator.scenario;

import dev.allot.simulator.trace.TraceJob;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Synthetic debug jobs, since the Philly trace has none. For every team, an independent Poisson
 * stream with {@code perTeamPerHour} arrivals per hour over the period (generator seeded by
 * (seed, team)); each job: 1 replica of 1, 2 or 4 GPUs (probabilities 1/2, 1/4, 1/4), a duration
 * uniform in 5..30 minutes (whole seconds), a minimum runtime uniform in 5..15 minutes (whole
 * minutes), not resumable. Ids are {@code debug-<team>-<n>}.
 */
public final class DebugJobs {
    public static final double DEFAULT_PER_TEAM_PER_HOUR = 1.0;

    private DebugJobs() {
    }

    public static List<TraceJob> generate(List<String> teams, long periodSeconds, double perTeamPerHour, long seed) {
        List<TraceJob> out = new ArrayList<>();
        if (perTeamPerHour <= 0) {
            return out;
        }
        double meanGap = 3600.0 / perTeamPerHour;
        for (String team : teams) {
            SplittableRandom r = Seeds.random(seed, "debug", team);
            double t = 0;
            int n = 0;
            while (true) {
                t += -Math.log(1.0 - r.nextDouble()) * meanGap;
                if (t >= periodSeconds) {
                    break;
                }
                double g = r.nextDouble();
                int gpus = g < 0.5 ? 1 : g < 0.75 ? 2 : 4;
                long duration = 300 + r.nextLong(1500 + 1);
                long minRuntime = 60 * (5 + r.nextLong(11));
                out.add(new TraceJob("debug-" + team + "-" + (++n), team, (long) t, gpus, 1, duration, minRuntime,
                        false, true));
            }
        }
        return out;
    }
}
