package dev.allot.core.usage;

import java.util.HashMap;
import java.util.Map;

/**
 * Charged and unallocated GPU-seconds per cluster and account over a sliding window, kept in a
 * ring of fixed-size buckets per account so the window slides by overwriting old slots.
 *
 * <p>The window at time {@code now} is the {@code n = window / bucket} buckets ending with the
 * bucket that contains {@code now}: from {@link #windowStart(long)} to now. Usage spanning several
 * buckets is spread over them in proportion to time. Usage older than the window is dropped.
 * Values are per account only; roll-up over the tree is the caller's (it knows the tree).
 */
public final class UsageLedger {

    private final long bucketMillis;
    private final int slots;
    private final Map<String, Map<String, Ring>> byCluster = new HashMap<>();

    public UsageLedger(long windowMillis, long bucketMillis) {
        this.bucketMillis = bucketMillis;
        this.slots = (int) Math.max(1, windowMillis / bucketMillis);
    }

    /** Becomes an independent copy of {@code other}'s buckets (a forward run from the same usage). */
    public void copyFrom(UsageLedger other) {
        if (other.slots != slots || other.bucketMillis != bucketMillis) {
            throw new IllegalArgumentException("a usage copy needs the same window and buckets");
        }
        UsageLedger c = this;
        c.byCluster.clear();
        for (Map.Entry<String, Map<String, Ring>> cl : other.byCluster.entrySet()) {
            Map<String, Ring> rings = new HashMap<>();
            for (Map.Entry<String, Ring> e : cl.getValue().entrySet()) {
                Ring from = e.getValue();
                Ring r = c.new Ring();
                System.arraycopy(from.bucket, 0, r.bucket, 0, slots);
                System.arraycopy(from.charged, 0, r.charged, 0, slots);
                System.arraycopy(from.unallocated, 0, r.unallocated, 0, slots);
                r.head = from.head;
                r.sumCharged = from.sumCharged;
                r.sumUnallocated = from.sumUnallocated;
                rings.put(e.getKey(), r);
            }
            c.byCluster.put(cl.getKey(), rings);
        }
    }

    /** Start of the window that ends at {@code nowMillis}. */
    /** Length of the window: the whole buckets it spans. */
    public long windowMillis() {
        return slots * bucketMillis;
    }

    public long windowStart(long nowMillis) {
        return (Math.floorDiv(nowMillis, bucketMillis) - slots + 1) * bucketMillis;
    }

    public void add(String cluster, String account, long startMillis, long endMillis, double gpuSeconds,
            boolean charged) {
        if (gpuSeconds == 0) {
            return;
        }
        Ring ring = byCluster.computeIfAbsent(cluster, c -> new HashMap<>()).computeIfAbsent(account, a -> new Ring());
        long first = Math.floorDiv(startMillis, bucketMillis);
        long last = endMillis > startMillis ? Math.floorDiv(endMillis - 1, bucketMillis) : first;
        if (last - first >= slots) {
            first = last - slots + 1;
            startMillis = first * bucketMillis;
            // only the part inside the last n buckets can still count
        }
        if (first == last) {
            ring.add(first, gpuSeconds, charged);
            return;
        }
        double total = endMillis - startMillis;
        for (long b = first; b <= last; b++) {
            long from = Math.max(startMillis, b * bucketMillis);
            long to = Math.min(endMillis, (b + 1) * bucketMillis);
            ring.add(b, gpuSeconds * (to - from) / total, charged);
        }
    }

    /** Charged GPU-seconds of exactly this account in the window ending at now. */
    public double charged(String cluster, String account, long nowMillis) {
        Ring r = ring(cluster, account);
        return r == null ? 0 : r.sum(Math.floorDiv(nowMillis, bucketMillis), true);
    }

    /** Unallocated GPU-seconds of exactly this account in the window ending at now. */
    public double unallocated(String cluster, String account, long nowMillis) {
        Ring r = ring(cluster, account);
        return r == null ? 0 : r.sum(Math.floorDiv(nowMillis, bucketMillis), false);
    }

    private Ring ring(String cluster, String account) {
        Map<String, Ring> m = byCluster.get(cluster);
        return m == null ? null : m.get(account);
    }

    /**
     * One account's ring. Keeps running sums over the buckets in (head - n, head], where head is
     * the newest bucket seen; moving head expires the slots that leave the window, so a query is
     * O(1) amortised.
     */
    private final class Ring {
        final long[] bucket = new long[slots];
        final double[] charged = new double[slots];
        final double[] unallocated = new double[slots];
        long head = Long.MIN_VALUE;
        double sumCharged;
        double sumUnallocated;

        Ring() {
            java.util.Arrays.fill(bucket, Long.MIN_VALUE);
        }

        private void advance(long to) {
            if (head == Long.MIN_VALUE) {
                head = to;
                return;
            }
            if (to <= head) {
                return;
            }
            long steps = Math.min(to - head, slots);
            for (long b = head - slots + 1; b < head - slots + 1 + steps; b++) {
                int i = (int) Math.floorMod(b, (long) slots);
                if (bucket[i] == b) {
                    sumCharged -= charged[i];
                    sumUnallocated -= unallocated[i];
                    bucket[i] = Long.MIN_VALUE;
                    charged[i] = 0;
                    unallocated[i] = 0;
                }
            }
            head = to;
            if (steps == slots) {
                sumCharged = 0; // everything expired: drop rounding residue
                sumUnallocated = 0;
            }
        }

        void add(long b, double gpuSeconds, boolean isCharged) {
            advance(b);
            if (b <= head - slots) {
                return; // older than the window
            }
            int i = (int) Math.floorMod(b, (long) slots);
            if (bucket[i] != b) {
                bucket[i] = b;
                charged[i] = 0;
                unallocated[i] = 0;
            }
            if (isCharged) {
                charged[i] += gpuSeconds;
                sumCharged += gpuSeconds;
            } else {
                unallocated[i] += gpuSeconds;
                sumUnallocated += gpuSeconds;
            }
        }

        double sum(long nowBucket, boolean isCharged) {
            advance(nowBucket);
            return Math.max(0, isCharged ? sumCharged : sumUnallocated);
        }
    }
}
