package dev.allot.core.explain;

import java.util.List;

/**
 * Why a job waits, as recorded by the last scheduling pass that looked at it.
 *
 * @param position 1-based position in its cluster's order in that pass
 * @param hold what holds it
 * @param accountsAhead accounts that ranked ahead of the job's account at each level of the tree
 *     (the siblings of its path with a better rank), with the ratios the ranking used
 * @param missing the missing resource in words (e.g. "2 nodes with 8 free GPUs, 0 available"), or ""
 * @param reservedFor the job holding the reservation that blocks it (or its own id), or null
 * @param passAtMillis the time of the pass
 */
public record WaitingExplanation(String jobId, String cluster, int position, Hold hold, List<AccountRatio> accountsAhead,
        String missing, String reservedFor, long passAtMillis, String reason) {
    public WaitingExplanation {
        accountsAhead = List.copyOf(accountsAhead);
    }
}
