package dev.allot.core.explain;

import java.util.ArrayList;
import java.util.Arrays;

/**
 * What the last pass over a cluster found about each waiting job it walked: its position and
 * what holds it. Internal. Written only by the pass, read by {@link Explainer}. Each waiting job
 * has a slot here from the time it joins the waiting set until it leaves ({@code
 * state.ClusterState} opens and closes it); the walk reaches a job's note by its slot, with no
 * lookup, and notes are reused across passes and jobs.
 */
public final class ExplanationBook {

    /** One waiting job as the pass numbered {@link #passNo} saw it. */
    public static final class Note {
        long passNo = -1;
        int position;
        Hold hold = Hold.NOT_YET_SCHEDULED;
        /** The missing resource in words, or null when {@link Explainer} words it from {@link #openNodesSeen}. */
        String missing = "";
        String reservedFor;
        /** Free open nodes of the right size seen by the pass that held it for want of resources. */
        int openNodesSeen;

        /** The pass walked the job at {@code position}: what held it is recorded next. */
        public Note walked(long pass, int at) {
            passNo = pass;
            position = at;
            reservedFor = null;
            missing = "";
            return this;
        }

        public void held(Hold why, String inWords) {
            hold = why;
            missing = inWords;
        }

        /** Held for want of free GPUs and of anything to preempt; worded on demand. */
        public void missingResource(int openNodes) {
            hold = Hold.MISSING_RESOURCE;
            missing = null;
            openNodesSeen = openNodes;
        }

        public void reservedFor(String jobId) {
            reservedFor = jobId;
        }
    }

    private final ArrayList<Note> notes = new ArrayList<>();
    /** Closed slots, reused first (a stack of {@link #freeCount} entries). */
    private int[] free = new int[16];
    private int freeCount;

    /** A slot for a job joining the waiting set; its note says no pass walked it yet. */
    public int open() {
        if (freeCount > 0) {
            return free[--freeCount];
        }
        notes.add(new Note());
        return notes.size() - 1;
    }

    /** The job in {@code slot} left the waiting set. */
    public void close(int slot) {
        notes.get(slot).passNo = -1;
        if (freeCount == free.length) {
            free = Arrays.copyOf(free, freeCount * 2);
        }
        free[freeCount++] = slot;
    }

    /** The note of the job in {@code slot}, to be written by the pass walking it. */
    public Note noteAt(int slot) {
        return notes.get(slot);
    }
}
