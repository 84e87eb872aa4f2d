package dev.allot.core.metrics;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;

/**
 * Counts preemption cycles: pairs of preemptions where account A displaces a job of account B and,
 * within {@code windowSeconds} after (same moment included), account B displaces a job of account
 * A. Each such pair counts once; a preemption inside one account (A displaces A) is no cycle.
 * Preemptions must be recorded in time order.
 */
public final class PreemptionCycles {
    private final double windowSeconds;
    /** Times of "preemptor displaced victim", by "preemptor\0victim", oldest first. */
    private final Map<String, ArrayDeque<Double>> byPair = new HashMap<>();
    private double last = Double.NEGATIVE_INFINITY;
    private int cycles;

    public PreemptionCycles(double windowSeconds) {
        this.windowSeconds = windowSeconds;
    }

    /** One hour, the window of the definition. */
    public static PreemptionCycles hourly() {
        return new PreemptionCycles(3600);
    }

    /** {@code preemptor}'s job displaced a job of {@code victim} at {@code atSeconds}. */
    public void record(double atSeconds, String preemptor, String victim) {
        if (atSeconds < last) {
            throw new IllegalArgumentException("preemptions out of time order: " + atSeconds + " after " + last);
        }
        last = atSeconds;
        if (preemptor == null || victim == null || preemptor.equals(victim)) {
            return;
        }
        ArrayDeque<Double> reverse = byPair.get(victim + '\0' + preemptor);
        if (reverse != null) {
            // times only grow, so what falls out of this window falls out of every later one
            while (!reverse.isEmpty() && reverse.peekFirst() < atSeconds - windowSeconds) {
                reverse.pollFirst();
            }
            cycles += reverse.size();
        }
        byPair.computeIfAbsent(preemptor + '\0' + victim, k -> new ArrayDeque<>()).addLast(atSeconds);
    }

    public int cycles() {
        return cycles;
    }
}
