package dev.allot.bench;

/**
 * The JMH {@code fullPass} benchmark in thread CPU time (steadier than JMH's wall clock on a loaded
 * machine): {@code args[0]} fresh {@link BenchWorld}s, each timed over its first pass only; prints
 * each pass's CPU and the mean and median of those after {@code args[1]} warm-up worlds.
 */
public final class FullPassCpu {
    private FullPassCpu() {
    }

    public static void main(String[] args) {
        var cpu = java.lang.management.ManagementFactory.getThreadMXBean();
        int worlds = Integer.parseInt(args[0]);
        int warmup = args.length > 1 ? Integer.parseInt(args[1]) : 3;
        double[] ms = new double[worlds - warmup];
        StringBuilder out = new StringBuilder("full pass ms CPU:");
        for (int i = 0; i < worlds; i++) {
            BenchWorld w = new BenchWorld(1);
            System.gc(); // the world's garbage collected before, not during, the timed pass
            long c0 = cpu.getCurrentThreadCpuTime();
            int decisions = w.s.schedule(w.now).size();
            double took = (cpu.getCurrentThreadCpuTime() - c0) / 1e6;
            out.append(String.format(" %.1f", took)).append(i < warmup ? "w" : "");
            if (i >= warmup) {
                ms[i - warmup] = took;
            }
            if (i == 0) {
                out.append(" (" + decisions + " decisions)");
            }
        }
        java.util.Arrays.sort(ms);
        System.out.println(out + String.format("; mean %.1f ms, median %.1f ms", java.util.Arrays.stream(ms).average().orElse(0),
                ms[ms.length / 2]));
    }
}
