package dev.allot.core;

import java.util.ArrayList;
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
    /** Where the walk stopped (step 4's early stop), or -1 if it walked everything. */
    int restGroup = -1;
    int restIndex;
    int restPositionBase;

    void add(List<Job> group, boolean isMerged) {
        groups.add(group);
        merged.add(isMerged);
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
