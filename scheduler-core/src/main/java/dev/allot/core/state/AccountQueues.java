package dev.allot.core.state;

import dev.allot.core.JobState;
import dev.allot.core.JobView;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;

/**
 * A cluster's waiting jobs per account, each account's list sorted by the policy's
 * within-account rule, kept across passes. Internal. Re-sorting 10,000 jobs on every pass would
 * dominate an incremental decision, so jobs that (re)join the waiting set are arrivals, merged by
 * binary search at the next pass; lists may hold stale entries (jobs that left, or re-arrived),
 * skipped by {@link #filed} and dropped at the next merge into that list.
 */
public final class AccountQueues {
    private final TreeMap<String, ArrayList<Job>> byAccount = new TreeMap<>();
    /** Jobs that joined the waiting set since the last merge. */
    private final ArrayList<Job> arrivals = new ArrayList<>();
    private Comparator<JobView> sortedBy;
    /**
     * Every filed job in one list sorted by the same rule, kept only once a pass asked for it (a
     * flat ranking merges all accounts on every pass; sorting 10,000 jobs each time cost a
     * quarter of a priority or quota simulation). May hold stale entries, like the account lists.
     */
    private ArrayList<Job> all;

    /** The job (re)joins the waiting set: the next merge files it in its account's list. */
    void arrive(Job j) {
        if (!j.arrived) {
            j.arrived = true;
            arrivals.add(j);
        }
        j.listedIn = null;
    }

    /** Whether the waiting job is filed in {@code list} (and not a stale entry there). */
    public static boolean filed(Job j, List<Job> list) {
        return j.state == JobState.WAITING && j.listedIn == list;
    }

    /**
     * Files the arrivals in their accounts' lists (by binary search with {@code within}). A new
     * {@code within} instance rebuilds every list.
     */
    void merge(Comparator<JobView> within, Collection<Job> waiting, WaitingShapes shapes) {
        if (sortedBy != within) {
            byAccount.clear();
            arrivals.clear();
            for (Job j : waiting) {
                j.arrived = false;
                arrive(j);
            }
            shapes.unlistAll();
            sortedBy = within;
            all = null;
        }
        if (all != null && !arrivals.isEmpty()) {
            // re-arrived jobs (listedIn null) are filed again below
            all.removeIf(o -> o.state != JobState.WAITING || o.listedIn == null);
        }
        // Stale entries go on the first arrival of each account (arrivals have listedIn == null, so
        // they go too); later arrivals find none.
        Set<ArrayList<Job>> cleaned = Collections.newSetFromMap(new IdentityHashMap<>());
        for (Job j : arrivals) {
            if (!j.arrived) {
                continue;
            }
            j.arrived = false;
            if (j.state != JobState.WAITING) {
                continue;
            }
            ArrayList<Job> list = byAccount.computeIfAbsent(j.account(), k -> new ArrayList<>());
            if (cleaned.add(list)) {
                list.removeIf(o -> o.state != JobState.WAITING || o.listedIn != list || o == j);
            }
            list.add(insertionPoint(list, j, within), j);
            j.listedIn = list;
            shapes.listed(j, 1);
            if (all != null) {
                all.add(insertionPoint(all, j, within), j);
            }
        }
        arrivals.clear();
    }

    private static int insertionPoint(List<Job> sorted, Job j, Comparator<JobView> within) {
        int lo = 0;
        int hi = sorted.size();
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (within.compare(sorted.get(mid), j) < 0) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    /**
     * Every filed job, sorted by the rule of the last merge: the jobs of all accounts merged, as
     * a flat ranking walks them. A new list the caller may keep.
     */
    public ArrayList<Job> allFiled() {
        if (all == null) {
            all = new ArrayList<>();
            for (ArrayList<Job> list : byAccount.values()) {
                for (Job j : list) {
                    if (filed(j, list)) {
                        all.add(j);
                    }
                }
            }
            all.sort(sortedBy);
        }
        ArrayList<Job> out = new ArrayList<>(all.size());
        for (Job j : all) {
            if (j.state == JobState.WAITING && j.listedIn != null) {
                out.add(j);
            }
        }
        return out;
    }

    /**
     * The accounts' lists by account name; lists without any filed job are dropped here. Live:
     * the caller iterates it once per pass.
     */
    public List<AccountList> accountsWithJobs() {
        ArrayList<AccountList> out = new ArrayList<>(byAccount.size());
        for (var it = byAccount.entrySet().iterator(); it.hasNext();) {
            var e = it.next();
            ArrayList<Job> list = e.getValue();
            boolean any = false;
            for (Job j : list) {
                if (filed(j, list)) {
                    any = true;
                    break;
                }
            }
            if (!any) {
                it.remove();
                continue;
            }
            out.add(new AccountList(e.getKey(), list));
        }
        return out;
    }

    /** The account's sorted list as it stands (may hold jobs placed or cancelled since it was filed), or null. */
    public List<Job> listOf(String account) {
        return byAccount.get(account);
    }

    /** One account's sorted list (shared: do not modify). */
    public record AccountList(String account, List<Job> jobs) {
    }
}
