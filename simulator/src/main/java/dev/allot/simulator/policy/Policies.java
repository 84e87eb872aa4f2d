package dev.allot.simulator.policy;

import dev.allot.core.SchedulerConfig;
import dev.allot.core.policy.BudgetPolicy;
import dev.allot.core.policy.SchedulingPolicy;
import dev.allot.simulator.scenario.Scenario;
import java.util.List;

/** Creates a fresh policy instance by name for one run. */
public final class Policies {
    public static final List<String> ALL = List.of("budget", "priority", "quota", "fairshare-decay");
    /** The priority policy's per-team concurrent limit, in multiples of the team's entitlement. */
    public static final double PRIORITY_LIMIT_FACTOR = 2.0;

    private Policies() {
    }

    public static SchedulingPolicy create(String name, Scenario sc) {
        return create(name, sc, SchedulerConfig.defaults().preemptionMargin());
    }

    /** As {@link #create(String, Scenario)}, with the budget policy's preemption margin. */
    public static SchedulingPolicy create(String name, Scenario sc, double budgetMargin) {
        return create(name, sc, budgetMargin, BudgetPolicy.DEFAULT_PROTECTED_RATIO);
    }

    /** As {@link #create(String, Scenario, double)}, with the budget policy's protected ratio too. */
    public static SchedulingPolicy create(String name, Scenario sc, double budgetMargin, double protectedRatio) {
        return create(name, sc, budgetMargin, protectedRatio, BudgetPolicy.DEFAULT_PROTECTED_FRACTION);
    }

    /** As {@link #create(String, Scenario, double, double)}, with the budget policy's protected fraction too. */
    public static SchedulingPolicy create(String name, Scenario sc, double budgetMargin, double protectedRatio,
            double protectedFraction) {
        return switch (name) {
            case "budget" -> new BudgetPolicy(budgetMargin, protectedRatio, protectedFraction);
            case "priority" -> PriorityPolicy.fromFractions(sc.fractions(), sc.clusterGpus(), sc.gpusPerNode(),
                    PRIORITY_LIMIT_FACTOR);
            case "quota" -> QuotaPolicy.fromFractions(sc.fractions(), sc.clusterGpus());
            case "fairshare-decay" -> new FairshareDecayPolicy(7 * SchedulerConfig.DAY);
            default -> throw new IllegalArgumentException("unknown policy " + name + "; known: " + ALL);
        };
    }
}
