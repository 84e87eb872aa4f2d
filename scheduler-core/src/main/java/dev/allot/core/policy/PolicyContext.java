package dev.allot.core.policy;

import dev.allot.core.SchedulerConfig;
import dev.allot.core.explain.AccountUsage;

/** What a policy may look at during one pass over one cluster. All values are for {@link #cluster()}. */
public interface PolicyContext {
    long nowMillis();

    String cluster();

    SchedulerConfig config();

    BudgetView budgets();

    /** Window usage, entitlement and ratio of an account, rolled up over its subtree. */
    AccountUsage usage(String account);

    /** GPUs held right now by running jobs charged to exactly this account. */
    int runningGpus(String account);

    /** GPUs held right now by running jobs charged to this account or any account below it. */
    int runningGpusUnder(String account);

    /**
     * Allocated (charged) GPUs held by running jobs of this account or any account below it, as the
     * pass found them when it started. Default: {@link #runningGpusUnder}.
     */
    default int allocatedGpusUnderAtStart(String account) {
        return runningGpusUnder(account);
    }

    /**
     * The same, counting the placements and preemptions this pass has made so far. Default:
     * {@link #runningGpusUnder}.
     */
    default int allocatedGpusUnder(String account) {
        return runningGpusUnder(account);
    }

    /** GPUs of the cluster's live (registered, not lost) nodes. */
    int capacityGpus();
}
