package dev.allot.bench;

import dev.allot.core.JobRequest;
import dev.allot.core.JobView;
import dev.allot.core.estimate.ForwardRun;
import dev.allot.core.estimate.LearnedRunTimes;
import dev.allot.core.estimate.StartEstimate;
import dev.allot.core.estimate.StartEstimator;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;

/**
 * One estimate refresh ({@link StartEstimator#estimate}) over {@link BenchWorld} after its first
 * pass: 1,024 x 8 GPUs full, about 10,000 waiting jobs, 506 accounts; run times learned from 20
 * finished runs per team (log-uniform 10 min to 12 h), a 7-day horizon, the default steps. The
 * live core is not changed by an estimate, so every call times the same work.
 */
@Threads(1)
@Fork(1)
public class EstimateBenchmark {

    @State(Scope.Benchmark)
    public static class World {
        BenchWorld w;
        StartEstimator estimator;

        @Setup(Level.Trial)
        public void build() {
            w = new BenchWorld(1);
            w.track(w.s.schedule(w.now));
            estimator = estimator(w);
        }
    }

    static StartEstimator estimator(BenchWorld w) {
        return estimator(w, StartEstimator.Steps.defaults());
    }

    static StartEstimator estimator(BenchWorld w, StartEstimator.Steps steps) {
        LearnedRunTimes runTimes = new LearnedRunTimes(2 * BenchWorld.HOUR);
        Random rnd = new Random(7);
        for (JobView j : w.s.jobs()) {
            if (rnd.nextInt(4) == 0) {
                JobRequest r = j.request();
                for (int k = 0; k < 5; k++) {
                    runTimes.observe(r, (long) (10 * BenchWorld.MIN * Math.pow(72, rnd.nextDouble())));
                }
            }
        }
        return new StartEstimator(runTimes, 7 * 24 * BenchWorld.HOUR, steps, true);
    }

    @Benchmark
    @BenchmarkMode(Mode.AverageTime)
    @OutputTimeUnit(TimeUnit.MILLISECONDS)
    public Map<String, StartEstimate> estimateRefresh(World st) {
        return st.estimator.estimate(st.w.s);
    }

    /**
     * Thread CPU time of {@code rounds} refreshes and of their copies ({@link StartEstimator#prepare}, the part a
     * service runs on its loop's thread) (args: rounds [maxSteps minStepMinutes stepFraction]) (steadier than
     * wall time on a shared machine), and what they found.
     */
    public static void main(String[] args) {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 10;
        BenchWorld w = new BenchWorld(1);
        w.track(w.s.schedule(w.now));
        StartEstimator.Steps d0 = StartEstimator.Steps.defaults();
        StartEstimator.Steps steps = args.length > 1 ? new StartEstimator.Steps(Integer.parseInt(args[1]),
                Long.parseLong(args[2]) * BenchWorld.MIN, Double.parseDouble(args[3]), d0.tickMillis()) : d0;
        StartEstimator e = estimator(w, steps);
        System.out.println(steps);
        System.out.printf(java.util.Locale.ROOT, "world built: %d waiting, %d running%n", w.waitingCount(), w.runningCount());
        var cpu = java.lang.management.ManagementFactory.getThreadMXBean();
        Map<String, StartEstimate> last = null;
        long best = Long.MAX_VALUE;
        long total = 0;
        for (int i = 0; i < rounds; i++) {
            long t0 = cpu.getCurrentThreadCpuTime();
            ForwardRun run = e.prepare(w.s); // what a service does on its loop's thread
            long copied = cpu.getCurrentThreadCpuTime() - t0;
            last = run.run();
            long d = cpu.getCurrentThreadCpuTime() - t0;
            System.out.printf(java.util.Locale.ROOT, "round %d: %.1f CPU ms (of which the copy %.1f), %d passes%n",
                    i + 1, d / 1e6, copied / 1e6, run.passes());
            best = Math.min(best, d);
            if (i > 0 || rounds == 1) {
                total += d;
            }
        }
        long placed = last.values().stream().filter(x -> !x.beyondHorizon()).count();
        System.out.printf(java.util.Locale.ROOT,
                "estimate refresh: %d waiting, %d placed within the horizon; CPU ms: best %.1f, mean of rounds 2-%d %.1f%n",
                last.size(), placed, best / 1e6, rounds, total / 1e6 / Math.max(1, rounds - 1));
        // what the estimates are, to compare two builds: the mean expected wait and a digest of every estimate
        double meanWaitMin = last.values().stream().mapToLong(x -> x.expectedStartMillis() - w.now).average().orElse(0)
                / BenchWorld.MIN;
        long digest = 1;
        for (StartEstimate x : last.values()) {
            digest = 31 * digest + x.jobId().hashCode() * 17L + x.expectedStartMillis() + x.basis().ordinal();
        }
        System.out.printf(java.util.Locale.ROOT, "estimates: mean expected wait %.2f min, digest %x%n", meanWaitMin, digest);
    }
}
