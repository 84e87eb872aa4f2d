package dev.allot.simulator.engine;

/**
 * Receives every job event of a run: {@code submit}, {@code place}, {@code preempt},
 * {@code requeue}, {@code complete}, {@code reject}, and {@code cutoff} for a job still running
 * when the period ends. {@code nodes} is the placement's node ids joined by ';' for {@code place},
 * else empty.
 */
@FunctionalInterface
public interface EventSink {
    EventSink NONE = (timeSeconds, jobId, team, event, gpus, nodes) -> { };

    void event(double timeSeconds, String jobId, String team, String event, int gpus, String nodes);
}
