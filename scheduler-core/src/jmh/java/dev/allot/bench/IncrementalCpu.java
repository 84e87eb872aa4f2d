package dev.allot.bench;

import dev.allot.core.Decision;
import java.util.List;

/**
 * The JMH incremental benchmarks' pattern in thread CPU time (steadier than JMH's wall clock on a
 * loaded machine): after {@link BenchWorld}'s first pass, {@code args[1]} passes each after one
 * submit ({@code submit}) or one submit and one finish ({@code finish}, as {@code finishOne}), 1 s
 * apart; prints the mean CPU per pass for each window of {@code args[2]} passes (the world grows
 * costlier as it runs) and over all.
 */
public final class IncrementalCpu {
    private IncrementalCpu() {
    }

    public static void main(String[] args) {
        var cpu = java.lang.management.ManagementFactory.getThreadMXBean();
        boolean finish = args[0].equals("finish");
        int passes = Integer.parseInt(args[1]);
        int window = Integer.parseInt(args[2]);
        BenchWorld w = new BenchWorld(1);
        w.track(w.s.schedule(w.now));
        long total = 0;
        long decisions = 0;
        StringBuilder out = new StringBuilder(args[0] + " ms CPU per pass by window of " + window + ":");
        long c0 = cpu.getCurrentThreadCpuTime();
        for (int i = 1; i <= passes; i++) {
            w.now += 1000;
            w.submitRandom();
            if (finish) {
                w.finishOne();
            }
            List<Decision> d = w.s.schedule(w.now);
            w.track(d);
            decisions += d.size();
            if (i % window == 0) {
                long c1 = cpu.getCurrentThreadCpuTime();
                out.append(String.format(" %.2f", (c1 - c0) / 1e6 / window));
                total += c1 - c0;
                c0 = c1;
            }
        }
        System.out.println(out + String.format("; mean %.3f ms; %d decisions", total / 1e6 / passes, decisions));
    }
}
