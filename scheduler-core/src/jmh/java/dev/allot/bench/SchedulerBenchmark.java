package dev.allot.bench;

import dev.allot.core.Decision;
import java.util.List;
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
 * One thread. fullPass: the first pass over a fresh {@link BenchWorld} (10,000 waiting, 5,000
 * running, 1,024 x 8 GPUs, 506 accounts), including the preemptions and placements it decides.
 * submitOne / finishOne: one event on the full cluster followed by the pass that decides it.
 * submitOne's queue grows by one job per call (about 40,000 waiting after 20 s); finishOne also
 * submits one job per call, so that the cluster stays full and the queue near 10,000 however
 * long it runs (finishes alone would drain the queue within seconds and then time an emptying
 * cluster).
 */
@Threads(1)
@Fork(1)
public class SchedulerBenchmark {

    @State(Scope.Benchmark)
    public static class Fresh {
        BenchWorld w;

        @Setup(Level.Invocation)
        public void build() {
            w = new BenchWorld(1);
            System.gc(); // the world's construction garbage is collected before the timed pass, not during it
        }
    }

    @State(Scope.Benchmark)
    public static class Steady {
        BenchWorld w;

        @Setup(Level.Trial)
        public void build() {
            w = new BenchWorld(1);
            w.track(w.s.schedule(w.now));
        }
    }

    @Benchmark
    @BenchmarkMode(Mode.SingleShotTime)
    @OutputTimeUnit(TimeUnit.MILLISECONDS)
    public List<Decision> fullPass(Fresh st) {
        return st.w.s.schedule(st.w.now);
    }

    @Benchmark
    @BenchmarkMode(Mode.AverageTime)
    @OutputTimeUnit(TimeUnit.MICROSECONDS)
    public List<Decision> submitOne(Steady st) {
        return submitThenPass(st.w, false);
    }

    @Benchmark
    @BenchmarkMode(Mode.AverageTime)
    @OutputTimeUnit(TimeUnit.MICROSECONDS)
    public List<Decision> finishOne(Steady st) {
        return submitThenPass(st.w, true);
    }

    /** One second on, a new job (and a running one finishing), one pass: the incremental decision. */
    private static List<Decision> submitThenPass(BenchWorld w, boolean finishOne) {
        w.now += 1000;
        w.submitRandom();
        if (finishOne) {
            w.finishOne();
        }
        List<Decision> d = w.s.schedule(w.now);
        w.track(d);
        return d;
    }
}
