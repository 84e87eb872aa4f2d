package dev.allot.simulator.policy;

import dev.allot.core.JobView;
import dev.allot.core.policy.PolicyContext;
import dev.allot.core.policy.PreemptionVerdict;
import dev.allot.core.policy.SchedulingPolicy;

/**
 * A policy that never preempts (the old ways Allot is compared with). Besides saying so to the
 * core, it lets the simulator skip waking the core when a protected window ends (nothing can happen
 * at that moment), which saves passes.
 */
public interface NonPreempting extends SchedulingPolicy {

    @Override
    default boolean preempts() {
        return false;
    }

    @Override
    default boolean mayPreempt(JobView preemptor, PolicyContext ctx) {
        return false;
    }

    @Override
    default PreemptionVerdict mayDisplace(JobView preemptor, JobView victim, PolicyContext ctx) {
        return PreemptionVerdict.no(name() + " policy: nothing is preemptible");
    }
}
