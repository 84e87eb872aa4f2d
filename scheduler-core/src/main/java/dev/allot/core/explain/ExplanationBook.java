package dev.allot.core.explain;

import dev.allot.core.state.Job;
import java.util.IdentityHashMap;

/**
 * What the last pass over a cluster found about each waiting job it walked: its position and
 * what holds it. Internal. Written only by the pass (one reused note per waiting job), read by
 * {@link Explainer}; a job's note goes when it leaves the waiting set.
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

    private final IdentityHashMap<Job, Note> notes = new IdentityHashMap<>();

    /** The job's note, to be written by the pass walking it. */
    public Note noteFor(Job j) {
        Note n = notes.get(j);
        if (n == null) {
            n = new Note();
            notes.put(j, n);
        }
        return n;
    }

    /** The job's note if a pass walked it (null if none did, or it left the waiting set since). */
    Note find(Job j) {
        return notes.get(j);
    }

    /** The job left the waiting set. */
    public void forget(Job j) {
        notes.remove(j);
    }
}
