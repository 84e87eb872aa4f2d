package dev.allot.simulator.policy;

/**
 * Marker for policies that never preempt: the simulator then does not wake the core when a
 * protected window ends (nothing can happen at that moment), which saves passes.
 */
public interface NonPreempting {
}
