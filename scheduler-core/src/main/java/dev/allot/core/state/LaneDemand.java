package dev.allot.core.state;

import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.TreeSet;

/**
 * What the debug lane is asked for on one cluster: GPUs of running lane jobs per account, and the
 * waiting debug-shape jobs (lane candidates) per account in the account's own order. Internal.
 */
public final class LaneDemand {
    /** The policy's within-account order (the same instance on every call, see SchedulingPolicy). */
    private final Comparator<? super Job> within;
    /** Waiting jobs of debug shape per account, in the account's own order. */
    private final HashMap<String, TreeSet<Job>> candidates = new HashMap<>();
    /** GPUs per account held by running lane jobs. */
    private final HashMap<String, Integer> runningGpus = new HashMap<>();
    /** {@link #waitingGpus} per account, summed; accounts whose candidates changed since are stale. */
    private final HashMap<String, Integer> waitingOf = new HashMap<>();
    private final HashSet<String> stale = new HashSet<>();
    private int waitingSum;
    private int waitingBound = Integer.MIN_VALUE;

    LaneDemand(Comparator<? super Job> within) {
        this.within = within;
    }

    void waiting(Job j) {
        candidates.computeIfAbsent(j.account(), a -> new TreeSet<>(within)).add(j);
        stale.add(j.account());
    }

    void left(Job j) {
        TreeSet<Job> mine = candidates.get(j.account());
        mine.remove(j);
        if (mine.isEmpty()) {
            candidates.remove(j.account());
        }
        stale.add(j.account());
    }

    void started(Job j) {
        runningGpus.merge(j.account(), j.gpus(), Integer::sum);
    }

    void stopped(Job j) {
        if (runningGpus.merge(j.account(), -j.gpus(), Integer::sum) == 0) {
            runningGpus.remove(j.account());
        }
    }

    public boolean noCandidates() {
        return candidates.isEmpty();
    }

    /** The account's waiting debug-shape jobs in its own order, or null if none. */
    public TreeSet<Job> candidatesOf(String account) {
        return candidates.get(account);
    }

    /** GPUs of the account's running lane jobs. */
    public int runningGpus(String account) {
        return runningGpus.getOrDefault(account, 0);
    }

    /** GPUs of running lane jobs plus, per account, the waiting debug-shape jobs that would join the lane. */
    public int demandGpus(int gpusPerAccount) {
        int demand = 0;
        for (int g : runningGpus.values()) {
            demand += g;
        }
        return demand + waitingGpus(gpusPerAccount);
    }

    /**
     * Per account, the GPUs of its first waiting debug-shape jobs (in its own order) that fit
     * within {@code bound} together, summed over accounts. Only accounts whose candidates changed
     * since the last call are counted again.
     */
    private int waitingGpus(int bound) {
        if (bound != waitingBound) {
            waitingOf.clear();
            waitingSum = 0;
            stale.addAll(candidates.keySet());
            waitingBound = bound;
        }
        for (String a : stale) {
            Integer old = waitingOf.remove(a);
            if (old != null) {
                waitingSum -= old;
            }
            TreeSet<Job> mine = candidates.get(a);
            if (mine != null) {
                int w = 0;
                for (Job j : mine) {
                    if (w + j.gpus() > bound) {
                        break;
                    }
                    w += j.gpus();
                }
                waitingOf.put(a, w);
                waitingSum += w;
            }
        }
        stale.clear();
        return waitingSum;
    }
}
