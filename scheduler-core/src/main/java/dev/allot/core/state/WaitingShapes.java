package dev.allot.core.state;

import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * The shapes of a cluster's waiting jobs, as multisets kept on every arrival and departure, in
 * total and per account. Internal. They let a pass tell that nothing later in its order (or
 * nothing of one account) could act, without visiting those jobs.
 */
public final class WaitingShapes {

    /**
     * One account's waiting jobs: their shapes by charge mode and how many of them its sorted list
     * in {@link AccountQueues} holds.
     */
    public static final class AccountWaiting {
        final ShapeCounts allocated = new ShapeCounts();
        final ShapeCounts unallocated = new ShapeCounts();
        /** Allocated jobs' minimum runtimes and known durations, multisets: who might backfill a reservation. */
        final TreeMap<Long, Integer> minRuntimes = new TreeMap<>();
        final TreeMap<Long, Integer> durations = new TreeMap<>();
        /** Waiting jobs filed in the account's sorted list. */
        int listed;
        private int jobs;
        /** Per GPUs per replica, the fewest replicas among the waiting jobs (0: none); null when stale. */
        private int[] fewestAllocated;
        private int[] fewestUnallocated;

        public ShapeCounts allocated() {
            return allocated;
        }

        public ShapeCounts unallocated() {
            return unallocated;
        }

        /** Jobs filed in the account's sorted list. */
        public int listed() {
            return listed;
        }

        /** The shortest minimum runtime of its allocated jobs, or -1 if none. */
        public long shortestMinRuntime() {
            return minRuntimes.isEmpty() ? -1 : minRuntimes.firstKey();
        }

        /** The shortest known duration of its jobs, or -1 if none is known. */
        public long shortestDuration() {
            return durations.isEmpty() ? -1 : durations.firstKey();
        }

        public int[] fewestAllocated() {
            if (fewestAllocated == null) {
                fewestAllocated = allocated.fewestReplicas(null);
            }
            return fewestAllocated;
        }

        public int[] fewestUnallocated() {
            if (fewestUnallocated == null) {
                fewestUnallocated = unallocated.fewestReplicas(null);
            }
            return fewestUnallocated;
        }
    }

    private final ShapeCounts all = new ShapeCounts();
    /** Waiting allocated jobs: the only ones that may preempt. */
    private final ShapeCounts allocated = new ShapeCounts();
    private final ShapeCounts unallocated = new ShapeCounts();
    /** Waiting jobs with a known duration: GPUs per replica to a multiset of their durations. */
    private final TreeMap<Integer, TreeMap<Long, Integer>> durationsByGpus = new TreeMap<>();
    /** Allocated waiting jobs: GPUs per replica to a multiset of their minimum runtimes. */
    private final TreeMap<Integer, TreeMap<Long, Integer>> minRuntimesByGpus = new TreeMap<>();
    private final HashMap<String, AccountWaiting> byAccount = new HashMap<>();

    public AccountWaiting of(String account) {
        return byAccount.get(account);
    }

    /** Every account with waiting jobs and its shapes (live: do not keep across changes). */
    public java.util.Set<java.util.Map.Entry<String, AccountWaiting>> accounts() {
        return java.util.Collections.unmodifiableMap(byAccount).entrySet();
    }

    /** Counts a job joining ({@code d} = 1) or leaving (-1) the waiting set. */
    void count(Job j, int d) {
        int gpus = j.request.gpusPerReplica();
        int replicas = j.request.replicas();
        all.add(gpus, replicas, d);
        AccountWaiting mine = byAccount.computeIfAbsent(j.account(), a -> new AccountWaiting());
        mine.jobs += d;
        mine.fewestAllocated = null;
        mine.fewestUnallocated = null;
        if (mine.jobs == 0) {
            byAccount.remove(j.account());
        }
        if (j.unallocated()) {
            unallocated.add(gpus, replicas, d);
            mine.unallocated.add(gpus, replicas, d);
        } else {
            allocated.add(gpus, replicas, d);
            mine.allocated.add(gpus, replicas, d);
            bump(mine.minRuntimes, j.request.minRuntimeMillis(), d);
            bump(minRuntimesByGpus, gpus, j.request.minRuntimeMillis(), d);
        }
        if (j.request.expectedDurationMillis() >= 0) {
            bump(durationsByGpus, gpus, j.request.expectedDurationMillis(), d);
            bump(mine.durations, j.request.expectedDurationMillis(), d);
        }
    }

    /** The job, waiting, was filed in ({@code d} = 1) or left (-1) its account's sorted list. */
    void listed(Job j, int d) {
        byAccount.get(j.account()).listed += d;
    }

    /** Every list is rebuilt: no waiting job is filed any more. */
    void unlistAll() {
        for (AccountWaiting w : byAccount.values()) {
            w.listed = 0;
        }
    }

    /**
     * Could some waiting job backfill a reserved node with {@code free} GPUs due in {@code untilDue} ms,
     * for a holder that may or may not preempt?
     */
    public boolean mayHaveBackfill(int free, long untilDue, boolean holderMayPreempt) {
        // (jobs that end before the due time may backfill)
        for (var e : durationsByGpus.headMap(free, true).values()) {
            if (e.firstKey() <= untilDue) {
                return true;
            }
        }
        if (!holderMayPreempt) {
            return false;
        }
        if (!unallocated.isEmpty() && unallocated.fewestGpus() <= free) {
            // (unallocated jobs may backfill: the holder can displace them at any time)
            return true;
        }
        // (so may jobs whose protection ends before the due time, if the holder may displace them)
        for (var e : minRuntimesByGpus.headMap(free, true).values()) {
            if (e.firstKey() <= untilDue) {
                return true;
            }
        }
        return false;
    }

    public ShapeCounts all() {
        return all;
    }

    public ShapeCounts allocated() {
        return allocated;
    }

    public ShapeCounts unallocated() {
        return unallocated;
    }

    /** Adds {@code d} to the count of {@code k} in the multiset filed under {@code gpus}; empty ones go. */
    private static <K> void bump(Map<Integer, TreeMap<K, Integer>> byGpus, int gpus, K k, int d) {
        TreeMap<K, Integer> m = byGpus.get(gpus);
        if (m == null) {
            m = new TreeMap<>();
            byGpus.put(gpus, m);
        }
        bump(m, k, d);
        if (m.isEmpty()) {
            byGpus.remove(gpus);
        }
    }

    private static <K> void bump(TreeMap<K, Integer> m, K k, int d) {
        // one descent of the tree (a pass bumps once per walked job)
        if (d != 0) {
            m.merge(k, d, (v, delta) -> v + delta == 0 ? null : v + delta);
        }
    }
}
