package dev.allot.core.policy;

import dev.allot.core.JobView;
import java.util.function.Predicate;

/**
 * A policy's answer, for one pass, to "may this preemptor displace any of these candidates" (one
 * running allocated job per account with preemptible work), faster than asking
 * {@link SchedulingPolicy#allowsDisplacing} of each: the core asks it for every account with
 * waiting work in every pass. It must agree with {@code allowsDisplacing} on every pair.
 */
public interface DisplacementIndex {
    /**
     * Whether {@code allowsDisplacing(preemptor, c)} holds for some candidate {@code c} that
     * {@code barred} does not exclude (the core's no-thrash guard).
     */
    boolean anyAllowed(JobView preemptor, Predicate<JobView> barred);
}
