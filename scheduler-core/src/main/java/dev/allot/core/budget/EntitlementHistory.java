package dev.allot.core.budget;

import java.util.ArrayList;
import java.util.Map;

/**
 * Entitlement of one cluster over time: piecewise constant segments of (capacity, fractions by
 * {@link Shares}), a new segment at every budget change or capacity change. Entitled GPU-seconds of
 * an account over a window = sum over segments of overlap x capacity x fraction. A change applies from its
 * timestamp on; a change stamped before the latest segment applies from that segment's start
 * (history is not rewritten).
 */
public final class EntitlementHistory {

    private record Segment(long startMillis, int capacityGpus, Map<String, Double> fractions) {
    }

    private final ArrayList<Segment> segments = new ArrayList<>();

    public void change(long atMillis, int capacityGpus, Map<String, Double> fractions) {
        if (!segments.isEmpty()) {
            Segment last = segments.get(segments.size() - 1);
            long at = Math.max(atMillis, last.startMillis);
            if (at == last.startMillis) {
                segments.set(segments.size() - 1, new Segment(at, capacityGpus, fractions));
                return;
            }
            segments.add(new Segment(at, capacityGpus, fractions));
        } else {
            segments.add(new Segment(atMillis, capacityGpus, fractions));
        }
    }

    /** Becomes a copy of {@code other}'s segments (a forward run from the same history). */
    public void copyFrom(EntitlementHistory other) {
        segments.clear();
        segments.addAll(other.segments); // segments are immutable records over immutable fraction maps
    }

    public int capacityGpus() {
        return segments.isEmpty() ? 0 : segments.get(segments.size() - 1).capacityGpus;
    }

    /** Entitled GPU-seconds of the account during [fromMillis, toMillis). */
    public double entitledGpuSeconds(String account, long fromMillis, long toMillis) {
        double sum = 0;
        for (int i = segments.size() - 1; i >= 0; i--) {
            Segment s = segments.get(i);
            long segEnd = i == segments.size() - 1 ? Long.MAX_VALUE : segments.get(i + 1).startMillis;
            long from = Math.max(fromMillis, s.startMillis);
            long to = Math.min(toMillis, segEnd);
            if (to > from && s.capacityGpus > 0) {
                Double f = s.fractions.get(account);
                if (f != null) {
                    // entitlement (Shares: fraction x GPUs) over the overlap, multiplied as seconds x GPUs x
                    // fraction: regrouping it as seconds x (fraction x GPUs) can move the last bit of the ratios
                    // the scheduler publishes, so the order the core was measured with stays
                    sum += (to - from) / 1000.0 * s.capacityGpus * f;
                }
            }
            if (s.startMillis <= fromMillis) {
                break;
            }
        }
        return sum;
    }

    /** Forgets segments that ended before {@code beforeMillis}. */
    public void prune(long beforeMillis) {
        int drop = 0;
        while (drop + 1 < segments.size() && segments.get(drop + 1).startMillis <= beforeMillis) {
            drop++;
        }
        if (drop > 0) {
            segments.subList(0, drop).clear();
        }
    }

    public int segmentCount() {
        return segments.size();
    }
}
