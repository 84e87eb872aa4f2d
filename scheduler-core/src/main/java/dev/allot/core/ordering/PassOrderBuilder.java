package dev.allot.core.ordering;

import dev.allot.core.JobView;
import dev.allot.core.policy.AccountRanking;
import dev.allot.core.state.AccountQueues;
import dev.allot.core.state.AccountQueues.AccountList;
import dev.allot.core.state.ClusterState;
import dev.allot.core.state.Job;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.TreeSet;

/**
 * Builds a pass's order (ordering rules 1-6 and debug lane rules 2-3): the debug lane first, then
 * the accounts by rank (then name), each account's jobs in the within-account order; accounts
 * sharing a rank (a flat policy) have their jobs merged by that order. Each account keeps its
 * waiting jobs sorted across passes ({@link AccountQueues}), so a pass only sorts the accounts.
 */
public final class PassOrderBuilder {
    private PassOrderBuilder() {
    }

    /** An account with waiting jobs and its rank. */
    private record Ranked(String account, int rank, List<Job> jobs) {
    }

    /**
     * The order of this pass.
     *
     * @param laneBound the debug lane's GPUs per account, or -1 when the policy has no lane
     */
    public static PassOrder build(ClusterState cs, AccountRanking ranking, Comparator<JobView> within, int laneBound) {
        cs.fileArrivals(within);
        List<AccountList> byName = cs.queues.accountsWithJobs();
        // (rank, position in name order) packed in a long: sorting those sorts by rank, then name
        long[] keys = new long[byName.size()];
        for (int i = 0; i < keys.length; i++) {
            keys[i] = (long) ranking.rankOf(byName.get(i).account()) << 32 | i;
        }
        Arrays.sort(keys);
        Ranked[] ranked = new Ranked[keys.length];
        for (int i = 0; i < keys.length; i++) {
            AccountList a = byName.get((int) keys[i]);
            ranked[i] = new Ranked(a.account(), (int) (keys[i] >> 32), a.jobs());
        }
        PassOrder out = new PassOrder();
        if (laneBound >= 0) {
            lane(cs, ranked, laneBound, out);
        }
        for (int i = 0; i < ranked.length;) {
            int r = ranked[i].rank();
            int k = i;
            while (k < ranked.length && ranked[k].rank() == r) {
                k++;
            }
            if (k - i == 1) {
                out.add(ranked[i].jobs(), ranked[i].account());
            } else if (k - i == ranked.length) {
                out.addMerged(cs.queues.allFiled()); // a flat ranking: the queues keep this merge
            } else {
                ArrayList<Job> mergedGroup = new ArrayList<>();
                for (int x = i; x < k; x++) {
                    List<Job> list = ranked[x].jobs();
                    for (Job j : list) {
                        if (AccountQueues.filed(j, list)) {
                            mergedGroup.add(j);
                        }
                    }
                }
                mergedGroup.sort(within);
                out.addMerged(mergedGroup);
            }
            i = k;
        }
        return out;
    }

    /**
     * Debug lane rules 2 and 3: per account, its debug-shape jobs in its own order while its lane
     * GPUs stay within {@code bound}; accounts in rank order (then name), so no sort is needed.
     */
    private static void lane(ClusterState cs, Ranked[] ranked, int bound, PassOrder out) {
        if (cs.laneDemand.noCandidates()) {
            return;
        }
        ArrayList<Job> lane = new ArrayList<>();
        for (Ranked r : ranked) {
            TreeSet<Job> candidates = cs.laneDemand.candidatesOf(r.account());
            if (candidates == null) {
                continue;
            }
            int used = cs.laneDemand.runningGpus(r.account());
            for (Job j : candidates) {
                if (j.listedIn() == null) {
                    continue;
                }
                if (used + j.gpus() > bound) {
                    break;
                }
                used += j.gpus();
                lane.add(j);
            }
        }
        if (!lane.isEmpty()) {
            out.addLane(lane);
        }
    }
}
