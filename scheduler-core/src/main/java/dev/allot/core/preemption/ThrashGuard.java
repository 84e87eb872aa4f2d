package dev.allot.core.preemption;

import java.util.HashMap;
import java.util.function.IntConsumer;

/**
 * No preemption cycles: after account A displaces a job of account B at t, B's jobs may not
 * displace A's until t + window (inclusive). Keyed by account ids; entries older than the window
 * are dropped as new ones come (at most once a window), so it holds only recent displacements. Internal; one per
 * cluster, changed by {@link Preemptor}.
 */
public final class ThrashGuard {
    /** By victim account id, then preemptor account id: when the preemptor's job last displaced one of the victim's. */
    private final HashMap<Integer, HashMap<Integer, Long>> byVictim = new HashMap<>();
    /**
     * By account id, the last time the account displaced anyone (never cleared, so at least as late
     * as its entries): most accounts displaced no one within the window, and the guard is asked for
     * thousands of account pairs a pass, so they are answered without a lookup.
     */
    private long[] lastAsPreemptor = new long[0];
    private long sweptAt = Long.MIN_VALUE;

    /** Becomes a copy of {@code other} (same account ids on both sides). */
    public void copyFrom(ThrashGuard other) {
        byVictim.clear();
        other.byVictim.forEach((victim, byPreemptor) -> byVictim.put(victim, new HashMap<>(byPreemptor)));
        lastAsPreemptor = other.lastAsPreemptor.clone();
        sweptAt = other.sweptAt;
    }

    /** {@code preemptor}'s job displaced a job of {@code victim} at {@code t}; entries older than {@code window} go. */
    public void displaced(int preemptor, int victim, long t, long window) {
        if (preemptor == victim) {
            return;
        }
        sweep(t, window);
        byVictim.computeIfAbsent(victim, v -> new HashMap<>()).put(preemptor, t);
        if (preemptor >= lastAsPreemptor.length) {
            int from = lastAsPreemptor.length;
            lastAsPreemptor = java.util.Arrays.copyOf(lastAsPreemptor, Math.max(preemptor + 1, from * 2));
            java.util.Arrays.fill(lastAsPreemptor, from, lastAsPreemptor.length, Long.MIN_VALUE / 4); // (no overflow in t - it)
        }
        lastAsPreemptor[preemptor] = Math.max(lastAsPreemptor[preemptor], t);
    }

    /** Whether {@code preemptor}'s jobs may not displace {@code victim}'s at {@code t}: the reverse happened within {@code window}. */
    public boolean blocks(int preemptor, int victim, long t, long window) {
        if (window <= 0 || preemptor == victim || victim >= lastAsPreemptor.length
                || t - lastAsPreemptor[victim] > window) {
            return false;
        }
        HashMap<Integer, Long> displacedBy = byVictim.get(preemptor);
        Long reverse = displacedBy == null ? null : displacedBy.get(victim);
        return reverse != null && t - reverse <= window;
    }

    /** Each account whose jobs {@code account}'s may not displace at {@code t} ({@link #blocks}), in no particular order. */
    public void forEachBlockedFor(int account, long t, long window, IntConsumer victim) {
        HashMap<Integer, Long> displacedBy = window <= 0 ? null : byVictim.get(account);
        if (displacedBy != null) {
            displacedBy.forEach((preemptor, at) -> {
                if (t - at <= window) {
                    victim.accept(preemptor);
                }
            });
        }
    }

    private void sweep(long t, long window) {
        if (t - sweptAt < window || byVictim.isEmpty()) {
            return;
        }
        sweptAt = t;
        byVictim.values().removeIf(byPreemptor -> {
            byPreemptor.values().removeIf(at -> t - at > window);
            return byPreemptor.isEmpty();
        });
    }
}
