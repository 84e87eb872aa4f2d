package dev.allot.core;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;

/**
 * The order of one pass without copying it: groups in rank order, each either an account's own
 * sorted list (shared with {@link ClusterState#byAccount}) or, for accounts sharing a rank, a
 * merged list. Entries that left the waiting set are skipped when met, so a pass touches only the
 * jobs it walks.
 */
final class PassOrder {
    final List<List<Job>> groups = new ArrayList<>();
    /** Whether group 0 is the debug lane (its jobs are skipped where they appear again). */
    boolean hasLane;
    private final List<Boolean> merged = new ArrayList<>();
    /** Each group's account, or null for the lane and merged groups. */
    private final List<String> accounts = new ArrayList<>();
    /** Accounts' lists the walk skipped whole (see Scheduler step 4), by identity. */
    private final IdentityHashMap<List<Job>, Skip> skipped = new IdentityHashMap<>();
    /** Where the walk stopped (step 4's early stop), or -1 if it walked everything. */
    int restGroup = -1;
    int restIndex;
    int restPositionBase;

    /** A group the walk skipped: its index, the position before it, and open nodes per free-GPU threshold then. */
    record Skip(int group, int positionBase, int[] openAtLeast) {
        int openNodes(int gpus) {
            return gpus < openAtLeast.length ? openAtLeast[Math.max(gpus, 0)] : 0;
        }
    }

    /** Adds one account's own list. */
    void add(List<Job> group, String account) {
        groups.add(group);
        merged.add(false);
        accounts.add(account);
    }

    /** Adds a list merged from several accounts (or the lane). */
    void addMerged(List<Job> group) {
        groups.add(group);
        merged.add(true);
        accounts.add(null);
    }

    /** The group's account, or null if it is the lane or merged. */
    String accountOf(int group) {
        return accounts.get(group);
    }

    void skip(int group, int positionBase, int[] openAtLeast) {
        skipped.put(groups.get(group), new Skip(group, positionBase, openAtLeast));
    }

    /** The skip of the list that holds the job (its account's), or null if that list was not skipped. */
    Skip skipOf(Job j) {
        return j.listedIn == null ? null : skipped.get(j.listedIn);
    }

    /** Position of a job in a skipped group; 0 if not found. */
    int positionIn(Skip skip, Job target) {
        int position = skip.positionBase();
        for (Job j : groups.get(skip.group())) {
            if (valid(j, skip.group())) {
                position++;
                if (j == target) {
                    return position;
                }
            }
        }
        return 0;
    }

    boolean valid(Job j, int group) {
        if (j.state != JobState.WAITING || (group > 0 && j.laneOf == this)) {
            return false;
        }
        return merged.get(group) ? j.listedIn != null : j.listedIn == groups.get(group);
    }

    /** Waiting jobs in order. */
    List<Job> jobs() {
        ArrayList<Job> out = new ArrayList<>();
        for (int g = 0; g < groups.size(); g++) {
            for (Job j : groups.get(g)) {
                if (valid(j, g)) {
                    out.add(j);
                }
            }
        }
        return out;
    }

    /** Position of a job the walk did not reach, counted on from where it stopped; 0 if not found. */
    int positionAfterStop(Job target) {
        if (restGroup < 0) {
            return 0;
        }
        int position = restPositionBase;
        for (int g = restGroup; g < groups.size(); g++) {
            List<Job> group = groups.get(g);
            for (int i = g == restGroup ? restIndex : 0; i < group.size(); i++) {
                Job j = group.get(i);
                if (valid(j, g)) {
                    position++;
                    if (j == target) {
                        return position;
                    }
                }
            }
        }
        return 0;
    }
}
