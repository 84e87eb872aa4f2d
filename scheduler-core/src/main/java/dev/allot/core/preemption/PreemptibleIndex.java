package dev.allot.core.preemption;

import dev.allot.core.state.ClusterState;
import dev.allot.core.state.Job;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.PriorityQueue;
import java.util.Set;

/**
 * Per node (position in the cluster's node array), the GPUs of running jobs that may be preempted
 * now, unallocated and allocated apart, kept across passes so a pass's {@link VictimSearch} need
 * not read every running job. A job counts from its placement if it is unallocated (or contracts
 * do not protect), else from the end of its protected window; it stops counting at its release.
 * Internal; changed by {@code state.ClusterState} on placement and release.
 */
public final class PreemptibleIndex {

    /** An allocated job's protected window ends at {@code until} (its current placement's, if still valid). */
    private record Protected(long until, Job job) {
    }

    private final PriorityQueue<Protected> protectedJobs = new PriorityQueue<>(
            (a, b) -> a.until() != b.until() ? Long.compare(a.until(), b.until()) : Long.compare(a.job().seq(), b.job().seq()));
    private int[] unallocated = new int[0];
    private int[] allocated = new int[0];
    /** The counted jobs on each node, in no particular order. */
    private ArrayList<ArrayList<Job>> onNode = new ArrayList<>();
    private int jobs;
    /** Per account id, the GPUs of its counted jobs: unallocated [2a], allocated [2a + 1]. */
    private int[] byAccount = new int[0];
    /** The jobs counted now (running and preemptible now). */
    private final Set<Job> counted = Collections.newSetFromMap(new IdentityHashMap<>());

    /** The job was placed at {@code t}; {@code counts} whether it may be preempted at once. */
    public void placed(ClusterState cs, Job j, boolean counts) {
        if (counts) {
            count(cs, j, 1);
        } else {
            protectedJobs.add(new Protected(j.protectedUntilMillis(), j));
        }
    }

    /** The job is about to release its GPUs (its placement is still set). */
    public void releasing(ClusterState cs, Job j) {
        if (counted.contains(j)) {
            count(cs, j, -1);
        } // else its queue entry goes stale and is dropped when it comes up
    }

    /** Counts every job whose protected window has ended by {@code t}. */
    public void advanceTo(ClusterState cs, long t) {
        while (!protectedJobs.isEmpty() && protectedJobs.peek().until() <= t) {
            Protected p = protectedJobs.poll();
            Job j = p.job();
            if (j.running() && !counted.contains(j) && j.protectedUntilMillis() == p.until()) {
                count(cs, j, 1);
            }
        }
    }

    public int[] unallocated(ClusterState cs) {
        fit(cs);
        return unallocated;
    }

    public int[] allocated(ClusterState cs) {
        fit(cs);
        return allocated;
    }

    /** The counted jobs on node i (shared: do not modify). */
    public ArrayList<Job> on(ClusterState cs, int i) {
        fit(cs);
        return onNode.get(i);
    }

    /** The running jobs that may be preempted now, in no particular order (shared: do not modify). */
    public Set<Job> countedJobs() {
        return counted;
    }

    /** Running jobs that may be preempted now. */
    public int jobs() {
        return jobs;
    }

    private void count(ClusterState cs, Job j, int d) {
        fit(cs);
        if (d > 0) {
            counted.add(j);
        } else {
            counted.remove(j);
        }
        jobs += d;
        int slot = 2 * j.accountId() + (j.unallocated() ? 0 : 1);
        if (slot >= byAccount.length) {
            byAccount = java.util.Arrays.copyOf(byAccount, Math.max(slot + 2, byAccount.length * 2));
        }
        byAccount[slot] += d * j.gpus();
        file(cs, j, d);
    }

    /** GPUs of the account's running jobs that may be preempted now, unallocated or allocated. */
    public int gpusOf(int accountId, boolean unallocated) {
        int slot = 2 * accountId + (unallocated ? 0 : 1);
        return slot < byAccount.length ? byAccount[slot] : 0;
    }

    /** One past the highest account id with a count. */
    public int accountBound() {
        return byAccount.length / 2;
    }

    /** Adds ({@code d} = 1) or takes away (-1) the job's GPUs and itself on each of its nodes. */
    private void file(ClusterState cs, Job j, int d) {
        int[] at = cs.nodeIndices(j);
        int[] sums = j.unallocated() ? unallocated : allocated;
        for (int k = 0; k < at.length; k++) {
            if (at[k] >= 0) {
                sums[at[k]] += d * j.placement().get(k).gpuIndices().size();
                if (d > 0) {
                    onNode.get(at[k]).add(j);
                } else {
                    onNode.get(at[k]).remove(j);
                }
            }
        }
    }

    /** Nodes only ever join a cluster, but anywhere in id order: then every counted job is filed again. */
    private void fit(ClusterState cs) {
        int n = cs.nodeArray().length;
        if (unallocated.length == n) {
            return;
        }
        unallocated = new int[n];
        allocated = new int[n];
        onNode = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            onNode.add(new ArrayList<>(4));
        }
        for (Job j : cs.runningJobs()) {
            if (counted.contains(j)) {
                file(cs, j, 1);
            }
        }
    }
}
