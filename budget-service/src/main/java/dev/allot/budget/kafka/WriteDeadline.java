package dev.allot.budget.kafka;

import java.time.Duration;

/**
 * The one time bound of a write request ({@code allot.budget.write-timeout}), shared by its steps (waiting for
 * another write, for the projection, for Kafka's acknowledgement, for the projection to show it): each step gets
 * what is left, so the answer comes within the bound whatever step waits.
 */
public final class WriteDeadline {

    private final long deadlineNanos;

    private WriteDeadline(long deadlineNanos) {
        this.deadlineNanos = deadlineNanos;
    }

    public static WriteDeadline after(Duration timeout) {
        return new WriteDeadline(System.nanoTime() + timeout.toNanos());
    }

    /** What is left (zero once passed). */
    public Duration remaining() {
        return Duration.ofNanos(Math.max(0, deadlineNanos - System.nanoTime()));
    }

    public long remainingMillis() {
        return remaining().toMillis();
    }
}
