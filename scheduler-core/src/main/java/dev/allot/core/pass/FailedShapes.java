package dev.allot.core.pass;

import java.util.Arrays;

/**
 * Job shapes (replicas x GPUs per replica) that failed to get something in one pass. A shape is
 * dominated when a failed one needed no more replicas and no more GPUs per replica: it would fail
 * the same way. Kept as, per replica count r, the fewest GPUs per replica among failures with at
 * most r replicas, so a check costs O(1) however many jobs of the pass failed.
 */
public final class FailedShapes {
    private static final int NONE = -1;
    /** minGpus[r]: fewest GPUs among failures with at most r replicas, or NONE. Queries past the end use the last. */
    private int[] minGpus = new int[0];

    public void add(int replicas, int gpus) {
        int r = Math.max(replicas, 0);
        if (r >= minGpus.length) {
            int old = minGpus.length;
            minGpus = Arrays.copyOf(minGpus, r + 1);
            Arrays.fill(minGpus, old, r + 1, old == 0 ? NONE : minGpus[old - 1]);
        }
        for (int k = r; k < minGpus.length; k++) {
            if (minGpus[k] == NONE || gpus < minGpus[k]) {
                minGpus[k] = gpus;
            }
        }
    }

    public boolean dominates(int replicas, int gpus) {
        if (replicas < 0 || minGpus.length == 0) {
            return false;
        }
        int m = minGpus[Math.min(replicas, minGpus.length - 1)];
        return m != NONE && gpus >= m;
    }

    /** Whether every shape is dominated; {@code fewest[g]}: the fewest replicas among shapes of g GPUs per replica (0: none). */
    public boolean dominatesAll(int[] fewest) {
        for (int gpus = 0; gpus < fewest.length; gpus++) {
            if (fewest[gpus] > 0 && !dominates(fewest[gpus], gpus)) {
                return false;
            }
        }
        return true;
    }

    public void clear() {
        minGpus = new int[0];
    }
}
