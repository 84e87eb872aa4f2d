package dev.allot.simulator.policy;

/**
 * Marker for policies whose decisions do not depend on the passing of time between events (no
 * usage ratio, no decay: only the queue and the running jobs): the simulator then skips the
 * coarse tick for them, since a pass between two events would decide nothing new.
 */
public interface TimeIndependent {
}
