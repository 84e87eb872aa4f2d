package dev.allot.core.ordering;

import dev.allot.core.JobState;
import dev.allot.core.state.Job;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;

/**
 * The order of one pass without copying it: groups in rank order, each either an account's own
 * sorted list (shared with {@code state.AccountQueues}) or, for accounts sharing a rank, a merged
 * list; the debug lane first if it has jobs. Entries that left the waiting set are skipped when
 * met, so a pass touches only the jobs it walks. Internal; built by {@link PassOrderBuilder}.
 */
public final class PassOrder {
    private final List<List<Job>> groups = new ArrayList<>();
    /** Whether group 0 is the debug lane (its jobs are skipped where they appear again). */
    private boolean hasLane;
    /** The jobs of the lane group, by identity. */
    private final Set<Job> lane = Collections.newSetFromMap(new IdentityHashMap<>());
    private final List<Boolean> merged = new ArrayList<>();
    /** Each group's account, or null for the lane and merged groups. */
    private final List<String> accounts = new ArrayList<>();
    /** Accounts' lists the walk skipped whole (see ClusterPass step 4), by identity. */
    private final IdentityHashMap<List<Job>, Skip> skipped = new IdentityHashMap<>();
    /** Where the walk stopped (step 4's early stop), or -1 if it walked everything. */
    private int restGroup = -1;
    private int restIndex;
    private int restPositionBase;
    /** Whether unallocated work was kept off open nodes in the pass that stopped (what it held them by). */
    private boolean restUnallocatedKeptOff;

    /**
     * A group the walk skipped from {@code fromIndex} on (0: whole; later: once what its first jobs
     * failed to get held the rest): its index, the position before the skipped part, open nodes per free-GPU threshold
     * then, and whether unallocated work was kept off open nodes in that pass (what held its unallocated jobs).
     */
    public record Skip(int group, int fromIndex, int positionBase, int[] openAtLeast, boolean unallocatedKeptOff) {
        public int openNodes(int gpus) {
            return gpus < openAtLeast.length ? openAtLeast[Math.max(gpus, 0)] : 0;
        }
    }

    /** Adds the debug lane's jobs as group 0. */
    void addLane(List<Job> jobs) {
        addMerged(jobs);
        lane.addAll(jobs);
        hasLane = true;
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

    public int groupCount() {
        return groups.size();
    }

    public List<Job> group(int g) {
        return groups.get(g);
    }

    /** Whether group {@code g} is the debug lane. */
    public boolean isLane(int g) {
        return hasLane && g == 0;
    }

    /** Whether the job is in the lane group. */
    public boolean inLane(Job j) {
        return hasLane && j.debugShape() && lane.contains(j);
    }

    /** The lane group's jobs (empty if none). */
    public List<Job> laneJobs() {
        return hasLane ? groups.get(0) : List.of();
    }

    /** The group's account, or null if it is the lane or merged. */
    public String accountOf(int group) {
        return accounts.get(group);
    }

    /** The walk skipped group {@code group} from entry {@code fromIndex} on, after {@code positionBase} jobs; open nodes by free GPUs then. */
    public void skip(int group, int fromIndex, int positionBase, int[] openAtLeast, boolean unallocatedKeptOff) {
        skipped.put(groups.get(group), new Skip(group, fromIndex, positionBase, openAtLeast, unallocatedKeptOff));
    }

    /** The walk stopped before job {@code index} of group {@code group}, after {@code positionBase} jobs. */
    public void stoppedAt(int group, int index, int positionBase, boolean unallocatedKeptOff) {
        restGroup = group;
        restIndex = index;
        restPositionBase = positionBase;
        restUnallocatedKeptOff = unallocatedKeptOff;
    }

    /** Whether the pass that stopped kept unallocated work off open nodes. */
    public boolean stoppedWithUnallocatedKeptOff() {
        return restUnallocatedKeptOff;
    }

    /** The skip of the list that holds the job (its account's), or null if that list was not skipped. */
    public Skip skipOf(Job j) {
        return j.listedIn() == null ? null : skipped.get(j.listedIn());
    }

    /** Position of a job in a skipped group; 0 if not found. */
    public int positionIn(Skip skip, Job target) {
        int position = skip.positionBase();
        List<Job> group = groups.get(skip.group());
        for (Job j : group.subList(Math.min(skip.fromIndex(), group.size()), group.size())) {
            if (valid(j, skip.group())) {
                position++;
                if (j == target) {
                    return position;
                }
            }
        }
        return 0;
    }

    /** Whether the entry is a job still waiting here (not placed, cancelled or walked in the lane since). */
    public boolean valid(Job j, int group) {
        if (j.state() != JobState.WAITING || (group > 0 && inLane(j))) {
            return false;
        }
        return merged.get(group) ? j.listedIn() != null : j.listedIn() == groups.get(group);
    }

    /** Waiting jobs in order. */
    public List<Job> jobs() {
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
    public int positionAfterStop(Job target) {
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
