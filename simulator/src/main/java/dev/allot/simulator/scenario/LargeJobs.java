package dev.allot.simulator.scenario;

import dev.allot.simulator.trace.TraceJob;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Synthetic large jobs, for traces with few or none (the shared Philly trace has one 64-GPU job,
 * after day 41). One Poisson stream with {@code perDay} arrivals per day over the whole
 * simulated period (generator seeded by (seed, "large")); each job: a team drawn uniformly, 8
 * replicas of 8 GPUs (64 GPUs, the smallest "large" job), a duration uniform in 2..12 h (whole
 * minutes), and no declared contract (the scenario's contract rule gives it one, as for trace
 * jobs). Ids are {@code large-<n>}.
 */
public final class LargeJobs {

    private LargeJobs() {
    }

    public static List<TraceJob> generate(List<String> teams, long periodSeconds, double perDay, long seed) {
        List<TraceJob> out = new ArrayList<>();
        if (perDay <= 0 || teams.isEmpty()) {
            return out;
        }
        SplittableRandom r = Seeds.random(seed, "large", "all");
        double meanGap = 86400.0 / perDay;
        double t = 0;
        int n = 0;
        while (true) {
            t += -Math.log(1.0 - r.nextDouble()) * meanGap;
            if (t >= periodSeconds) {
                return out;
            }
            String team = teams.get(r.nextInt(teams.size()));
            long duration = 60 * (120 + r.nextLong(600 + 1));
            out.add(new TraceJob("large-" + (++n), team, (long) t, 8, 8, duration, -1, null, false));
        }
    }
}
