package dev.allot.simulator.report;

import dev.allot.core.metrics.ClusterMetrics;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What a run's preemptions cost, per victim team (split by charge mode and by resumable or not)
 * and per time bucket, summed from the run's preemption log: the same preemptions, with the same
 * lost GPU-seconds, that the metrics counted.
 */
final class Losses {
    private Losses() {
    }

    /** One team's preemptions as victim and the GPU-hours they lost, four ways. */
    record Team(int preemptions, double allocatedResumable, double allocatedNonResumable,
            double unallocatedResumable, double unallocatedNonResumable) {
        static final Team NONE = new Team(0, 0, 0, 0, 0);

        double total() {
            return allocatedResumable + allocatedNonResumable + unallocatedResumable + unallocatedNonResumable;
        }

        double allocated() {
            return allocatedResumable + allocatedNonResumable;
        }

        double unallocated() {
            return unallocatedResumable + unallocatedNonResumable;
        }

        double resumable() {
            return allocatedResumable + unallocatedResumable;
        }

        double nonResumable() {
            return allocatedNonResumable + unallocatedNonResumable;
        }

        Team plus(ClusterMetrics.Preemption p) {
            double h = Math.max(0, p.lostGpuSeconds()) / 3600.0;
            return new Team(preemptions + 1,
                    allocatedResumable + (p.allocated() && p.resumable() ? h : 0),
                    allocatedNonResumable + (p.allocated() && !p.resumable() ? h : 0),
                    unallocatedResumable + (!p.allocated() && p.resumable() ? h : 0),
                    unallocatedNonResumable + (!p.allocated() && !p.resumable() ? h : 0));
        }
    }

    /** Per victim team, sorted by name; teams never preempted are absent ({@link Team#NONE}). */
    static Map<String, Team> byTeam(List<ClusterMetrics.Preemption> log) {
        Map<String, Team> m = new TreeMap<>();
        for (ClusterMetrics.Preemption p : log) {
            m.put(p.victimAccount(), m.getOrDefault(p.victimAccount(), Team.NONE).plus(p));
        }
        return m;
    }

    /**
     * Preemptions bucketed by the moment they happened, over [0, periodSeconds).
     *
     * @param count preemptions per bucket
     * @param lostAllocated GPU-hours lost by allocated victims per bucket
     * @param lostUnallocated GPU-hours lost by unallocated victims per bucket
     */
    record Timeline(long bucketSeconds, int[] count, double[] lostAllocated, double[] lostUnallocated) {
        int buckets() {
            return count.length;
        }

        /** Per day over a period of three days or more, per hour over a shorter one. */
        static long bucketFor(long periodSeconds) {
            return periodSeconds >= 3 * 86400 ? 86400 : 3600;
        }

        static Timeline of(List<ClusterMetrics.Preemption> log, long periodSeconds, long bucketSeconds) {
            int n = (int) Math.max(1, (periodSeconds + bucketSeconds - 1) / bucketSeconds);
            int[] count = new int[n];
            double[] alloc = new double[n];
            double[] unalloc = new double[n];
            for (ClusterMetrics.Preemption p : log) {
                int b = (int) Math.min(n - 1, Math.max(0, (long) Math.floor(p.atSeconds() / bucketSeconds)));
                count[b]++;
                double h = Math.max(0, p.lostGpuSeconds()) / 3600.0;
                if (p.allocated()) {
                    alloc[b] += h;
                } else {
                    unalloc[b] += h;
                }
            }
            return new Timeline(bucketSeconds, count, alloc, unalloc);
        }
    }
}
