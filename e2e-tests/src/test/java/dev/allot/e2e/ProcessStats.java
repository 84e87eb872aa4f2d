package dev.allot.e2e;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** CPU time and peak resident memory of a process, from Linux's /proc (for the benchmarks' component figures). */
final class ProcessStats {

    private static final long CLOCK_TICKS_PER_SECOND = 100; // USER_HZ on Linux

    private ProcessStats() {
    }

    /** utime + stime of the process, in milliseconds; -1 if it is gone. */
    static long cpuMillis(long pid) {
        return statMillis(pid, 11, 12);
    }

    /**
     * cutime + cstime: the CPU of the process's children that it has waited for, in milliseconds; -1 if it is
     * gone. For a node agent: its jobs' processes (supervisor, setpriv, loader, the command).
     */
    static long childrenCpuMillis(long pid) {
        return statMillis(pid, 13, 14);
    }

    /** Two clock-tick fields of /proc/PID/stat (counted from the state field, after the command's ')'), summed. */
    private static long statMillis(long pid, int first, int second) {
        try {
            String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
            String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return (Long.parseLong(fields[first]) + Long.parseLong(fields[second])) * 1000 / CLOCK_TICKS_PER_SECOND;
        } catch (IOException e) {
            return -1;
        }
    }

    /** CPU nanoseconds of each live Java thread of this JVM, by thread id, with its name. */
    static java.util.Map<Long, ThreadCpu> threadCpu() {
        java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
        java.util.Map<Long, ThreadCpu> cpu = new java.util.HashMap<>();
        for (java.lang.management.ThreadInfo info : threads.getThreadInfo(threads.getAllThreadIds())) {
            if (info != null) {
                long nanos = threads.getThreadCpuTime(info.getThreadId());
                if (nanos >= 0) {
                    cpu.put(info.getThreadId(), new ThreadCpu(info.getThreadName(), nanos));
                }
            }
        }
        return cpu;
    }

    record ThreadCpu(String name, long nanos) {
    }

    /**
     * This JVM's CPU between two {@link #threadCpu()} snapshots, summed by {@code group} of the thread's name, in
     * milliseconds (threads that ended in between are left out).
     */
    static java.util.Map<String, Long> threadCpuMillisByGroup(java.util.Map<Long, ThreadCpu> before,
                                                            java.util.Map<Long, ThreadCpu> after,
                                                            java.util.function.Function<String, String> group) {
        java.util.Map<String, Long> millis = new java.util.TreeMap<>();
        after.forEach((id, t) -> {
            ThreadCpu was = before.get(id);
            long nanos = t.nanos() - (was != null && was.name().equals(t.name()) ? was.nanos() : 0);
            millis.merge(group.apply(t.name()), nanos / 1_000_000, Long::sum);
        });
        return millis;
    }

    /** VmHWM, in MB; -1 if the process is gone. */
    static long peakRssMb(long pid) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
                if (line.startsWith("VmHWM:")) {
                    return Long.parseLong(line.replaceAll("\\D", "")) / 1024;
                }
            }
            return -1;
        } catch (IOException e) {
            return -1;
        }
    }
}
