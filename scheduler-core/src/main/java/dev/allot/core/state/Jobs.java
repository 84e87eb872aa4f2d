package dev.allot.core.state;

import dev.allot.core.JobState;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;

/** Every job the core knows, by id in submission order, and the dense account ids of their accounts. Internal. */
public final class Jobs {
    private final LinkedHashMap<String, Job> byId = new LinkedHashMap<>();
    private final HashMap<String, Integer> accountIds = new HashMap<>();
    /** Account names by id. */
    private final java.util.ArrayList<String> accountNames = new java.util.ArrayList<>();

    public Job get(String jobId) {
        return byId.get(jobId);
    }

    public boolean contains(String jobId) {
        return byId.containsKey(jobId);
    }

    /** A new job's dense account id (accounts get theirs on their first submit). */
    public int accountId(String account) {
        Integer id = accountIds.get(account);
        if (id == null) {
            id = accountIds.size();
            accountIds.put(account, id);
            accountNames.add(account);
        }
        return id;
    }

    /** The account with this id. */
    public String accountName(int id) {
        return accountNames.get(id);
    }

    /** Gives every account the id it has in {@code other} (a copy keyed by the same ids); call before any job is added. */
    public void copyAccountIds(Jobs other) {
        accountIds.clear();
        accountIds.putAll(other.accountIds);
        accountNames.clear();
        accountNames.addAll(other.accountNames);
    }

    /** Accounts that have an id: the bound of every id given so far. */
    public int accountCount() {
        return accountIds.size();
    }

    /** The sequence number for the next job. */
    public long nextSeq() {
        return byId.size();
    }

    public void add(Job j) {
        byId.put(j.jobId(), j);
    }

    /** Live, in submission order. */
    public Collection<Job> all() {
        return byId.values();
    }

    /** Drops finished and rejected jobs; how many. */
    public int forgetFinished() {
        int before = byId.size();
        byId.values().removeIf(j -> j.state == JobState.FINISHED || j.state == JobState.REJECTED);
        return before - byId.size();
    }
}
