package dev.allot.core.preemption;

import java.util.HashMap;

/**
 * No preemption cycles: after account A displaces a job of account B at t, B's jobs may not
 * displace A's until t + window (inclusive). Keyed by account ids; entries older than the window
 * are dropped as new ones come (at most once a window), so it holds only recent displacements. Internal; one per
 * cluster, changed by {@link Preemptor}.
 */
public final class ThrashGuard {
    private final HashMap<Long, Long> lastDisplaced = new HashMap<>();
    /**
     * By account id, the last time the account displaced anyone (never cleared, so at least as late
     * as its entries): most accounts displaced no one within the window, and the guard is asked for
     * thousands of account pairs a pass, so they are answered without a lookup.
     */
    private long[] lastAsPreemptor = new long[0];
    private long sweptAt = Long.MIN_VALUE;

    private static long key(int preemptor, int victim) {
        return (long) preemptor << 32 | (victim & 0xffffffffL);
    }

    /** Becomes a copy of {@code other} (same account ids on both sides). */
    public void copyFrom(ThrashGuard other) {
        lastDisplaced.clear();
        lastDisplaced.putAll(other.lastDisplaced);
        lastAsPreemptor = other.lastAsPreemptor.clone();
        sweptAt = other.sweptAt;
    }

    /** {@code preemptor}'s job displaced a job of {@code victim} at {@code t}; entries older than {@code window} go. */
    public void displaced(int preemptor, int victim, long t, long window) {
        if (preemptor != victim) {
            sweep(t, window);
            lastDisplaced.put(key(preemptor, victim), t);
            if (preemptor >= lastAsPreemptor.length) {
                int from = lastAsPreemptor.length;
                lastAsPreemptor = java.util.Arrays.copyOf(lastAsPreemptor, Math.max(preemptor + 1, from * 2));
                java.util.Arrays.fill(lastAsPreemptor, from, lastAsPreemptor.length, Long.MIN_VALUE / 4); // (no overflow in t - it)
            }
            lastAsPreemptor[preemptor] = Math.max(lastAsPreemptor[preemptor], t);
        }
    }

    /** Whether {@code preemptor}'s jobs may not displace {@code victim}'s at {@code t}: the reverse happened within {@code window}. */
    public boolean blocks(int preemptor, int victim, long t, long window) {
        if (window <= 0 || preemptor == victim || lastDisplaced.isEmpty() || victim >= lastAsPreemptor.length
                || t - lastAsPreemptor[victim] > window) {
            return false;
        }
        Long reverse = lastDisplaced.get(key(victim, preemptor));
        return reverse != null && t - reverse <= window;
    }

    private void sweep(long t, long window) {
        if (t - sweptAt < window || lastDisplaced.isEmpty()) {
            return;
        }
        sweptAt = t;
        lastDisplaced.values().removeIf(at -> t - at > window);
    }
}
