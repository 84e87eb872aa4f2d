package dev.allot.core;

import dev.allot.core.cluster.Node;
import dev.allot.core.policy.SchedulingPolicy;
import dev.allot.core.reservation.Reservation;
import dev.allot.core.state.ClusterState;
import dev.allot.core.state.Job;
import java.util.ArrayList;
import java.util.List;

/**
 * Builds an independent copy of a core for a forward run (start-time estimates), straight from its
 * state rather than from its log, so it costs one pass over the jobs and nodes:
 *
 * <ul>
 *   <li>budgets: the same tree, defined again parent first;
 *   <li>usage: the same ledger buckets and the accounts' creation times, so every ratio is the
 *       live core's to the last bit;
 *   <li>nodes: every node with its epoch and its drain and loss flags;
 *   <li>jobs, in submission order with the same account ids: running ones on the same GPU indices
 *       from the same placement time, last checkpoint, queue time, requeues, lane and no-thrash
 *       guard; waiting ones with their queue time and requeues;
 *   <li>each cluster's reservations (same holder, nodes and due time), the debug lane's held
 *       nodes and the no-thrash guard.
 * </ul>
 *
 * <p>Not copied, because the copy's first pass rebuilds them: the last pass's order and
 * explanations, and decisions not reported yet (their effect on the
 * jobs is in the state already). With {@link UsageFeed#RUNNING_JOBS} in the copy's config the copy
 * charges its running jobs from the live core's time on, whatever feed the live core has.
 */
final class SchedulerCopy {
    private SchedulerCopy() {
    }

    static Scheduler of(Scheduler live, SchedulerConfig config, SchedulingPolicy policy) {
        Scheduler c = new Scheduler(config, policy);
        c.now = live.now;
        c.passCounter = live.passCounter;
        c.accountedUntil = config.usageFeed() == live.config().usageFeed() ? live.accountedUntil : live.now;
        copyTree(live.tree, c.tree);
        c.ledger.copyFrom(live.ledger);
        c.jobs.copyAccountIds(live.jobs);
        for (ClusterState from : live.clusters.values()) {
            ClusterState to = c.cluster(from.name);
            for (Node n : from.nodes()) {
                Node copy = Node.emptyCopyOf(n);
                c.nodeById.put(copy.nodeId(), copy);
                to.nodeCopied(copy);
            }
            for (Node held : from.laneNodes.nodes()) {
                Node n = to.node(held.nodeId());
                if (n != null && n.available()) {
                    to.laneNodes.hold(n, to.open);
                }
            }
            to.thrash.copyFrom(from.thrash);
        }
        for (Job j : live.jobs.all()) {
            if (j.running()) {
                copyRunning(c, j, policy);
            } else if (j.waiting()) {
                Job w = new Job(j.request(), c.jobs.nextSeq(), c.jobs.accountId(j.account()),
                        policy.hasDebugLane() && config.debugLane().hasDebugShape(j.request()));
                c.cluster(j.cluster()).restoreWaiting(w, j.queuedSinceMillis(), j.requeues());
                c.jobs.add(w);
            }
        }
        for (ClusterState from : live.clusters.values()) {
            ClusterState to = c.clusters.get(from.name);
            for (Reservation r : from.reservations.all()) {
                Job holder = c.jobs.get(r.jobId());
                if (holder != null && holder.waiting() && r.nodeIds().stream().allMatch(id -> to.node(id) != null
                        && to.node(id).available())) {
                    to.reservations.add(r);
                }
            }
        }
        return c;
    }

    private static void copyRunning(Scheduler c, Job j, SchedulingPolicy policy) {
        ClusterState cs = c.cluster(j.cluster());
        ArrayList<Node> nodes = new ArrayList<>(j.placement().size());
        ArrayList<List<Integer>> gpus = new ArrayList<>(j.placement().size());
        for (ReplicaPlacement r : j.placement()) {
            nodes.add(cs.node(r.nodeId()));
            gpus.add(r.gpuIndices());
        }
        Job r = new Job(j.request(), c.jobs.nextSeq(), c.jobs.accountId(j.account()),
                policy.hasDebugLane() && c.config().debugLane().hasDebugShape(j.request()));
        cs.restoreRunning(r, nodes, gpus, j.placedAtMillis(), j.lastCheckpointMillis(), j.queuedSinceMillis(),
                j.requeues(), r.unallocated() || !policy.contractsProtect(), j.inLane() && r.debugShape());
        if (j.guardedUntilMillis() >= 0) {
            cs.guardFromThrash(r, j.guardedUntilMillis());
        }
        c.jobs.add(r);
    }

    /** Defines every account of {@code from} in {@code to}, parents before children, siblings by name. */
    private static void copyTree(dev.allot.core.budget.BudgetTree from, dev.allot.core.budget.BudgetTree to) {
        ArrayList<String> stack = new ArrayList<>(from.roots().reversed());
        while (!stack.isEmpty()) {
            String a = stack.removeLast();
            to.define(a, from.parent(a), from.share(a), from.createdAtMillis(a));
            stack.addAll(from.children(a).reversed());
        }
    }
}
