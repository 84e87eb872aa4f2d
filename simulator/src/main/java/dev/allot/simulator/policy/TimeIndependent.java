package dev.allot.simulator.policy;

import dev.allot.core.JobView;
import dev.allot.core.policy.AccountRanking;
import dev.allot.core.policy.PolicyContext;
import java.util.Comparator;

/**
 * The old ways without a usage ratio: every account ranks alike, jobs go first come first served,
 * nothing is reserved and nothing preempted. Their decisions do not depend on the passing of time
 * between events (only the queue and the running jobs), so the simulator skips the coarse tick for
 * them: a pass between two events would decide nothing new. Implementations add their admission rule.
 */
public interface TimeIndependent extends NonPreempting {

    @Override
    default AccountRanking rankAccounts(PolicyContext ctx) {
        return AccountRanking.flat();
    }

    @Override
    default Comparator<JobView> withinAccount() {
        return FIFO;
    }

    @Override
    default boolean reservesForBlockedJobs() {
        return false;
    }
}
