package dev.allot.core.ordering;

import dev.allot.core.explain.AccountRatio;
import dev.allot.core.explain.AccountUsage;
import dev.allot.core.policy.AccountRanking;
import dev.allot.core.policy.BudgetView;
import java.util.function.Function;

/** Hierarchical fair-share ranking (Slurm's Fair Tree). */
public final class FairTree {
    private FairTree() {
    }

    public static AccountRanking rank(BudgetView tree, Function<String, AccountUsage> usage) {
        throw new UnsupportedOperationException("in progress");
    }
}
