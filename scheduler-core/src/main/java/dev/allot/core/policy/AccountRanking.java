package dev.allot.core.policy;

import dev.allot.core.explain.AccountRatio;
import java.util.List;

/**
 * The order of accounts for one pass over one cluster. Jobs are ordered by their account's rank
 * first, then by {@link SchedulingPolicy#withinAccount()}. Accounts may share a rank (their jobs
 * then interleave by the within-account rule, e.g. FIFO for a flat policy).
 */
public interface AccountRanking {
    /** Rank of the account's jobs, lower first; {@link Integer#MAX_VALUE} for unknown accounts. */
    int rankOf(String account);

    /** For explanations: the accounts that rank ahead of this one, with the values used to rank them. */
    List<AccountRatio> aheadOf(String account);

    /** A ranking in which every account has rank 0 (pure within-account order, e.g. FIFO). */
    static AccountRanking flat() {
        return new AccountRanking() {
            @Override
            public int rankOf(String account) {
                return 0;
            }

            @Override
            public List<AccountRatio> aheadOf(String account) {
                return List.of();
            }
        };
    }
}
