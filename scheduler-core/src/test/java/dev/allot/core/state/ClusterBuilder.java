package dev.allot.core.state;

import dev.allot.core.JobRequest;
import dev.allot.core.NodeSpec;
import dev.allot.core.SchedulerConfig;
import dev.allot.core.budget.BudgetTree;
import dev.allot.core.cluster.Node;
import dev.allot.core.pass.PassContext;
import dev.allot.core.policy.BudgetPolicy;
import dev.allot.core.policy.SchedulingPolicy;
import dev.allot.core.usage.UsageLedger;
import java.util.List;

/** Given-steps for the phases' own tests: one cluster "c1" built directly, without the facade. */
public final class ClusterBuilder {
    public static final long T0 = 1_700_000_000_000L;
    public static final long HOUR = 3_600_000L;

    public final ClusterState cs = new ClusterState("c1", SchedulingPolicy.PRIORITY_THEN_SUBMIT);
    public final Jobs jobs = new Jobs();
    public final BudgetTree tree = new BudgetTree();
    public SchedulingPolicy policy = new BudgetPolicy();

    /** Nodes c1-n001.. with {@code gpus} GPUs each, open. */
    public ClusterBuilder nodes(int count, int gpus) {
        int existing = cs.nodes().size();
        for (int i = 0; i < count; i++) {
            cs.nodeJoined(new Node(new NodeSpec("c1", String.format("c1-n%03d", existing + i + 1), gpus)));
        }
        return this;
    }

    public Node node(int i) {
        return cs.node(String.format("c1-n%03d", i));
    }

    /** A waiting job ({@code minRuntime} 0: unallocated), submitted at {@code submitAt}. */
    public Job waiting(String id, String account, int replicas, int gpus, long minRuntime, long submitAt) {
        return waiting(JobRequest.of(id, account, "c1", replicas, gpus, minRuntime, true, submitAt));
    }

    public Job waiting(JobRequest r) {
        Job j = new Job(r, jobs.nextSeq(), jobs.accountId(r.account()), false);
        jobs.add(j);
        cs.arrive(j);
        return j;
    }

    /** A job running on the given nodes since {@code t}, preemptible at once (as if contracts did not protect it). */
    public Job running(String id, String account, int gpus, long minRuntime, long t, Node... on) {
        Job j = waiting(id, account, on.length, gpus, minRuntime, t);
        cs.place(j, List.of(on), t, true, false);
        return j;
    }

    public PassContext pass(long t) {
        return new PassContext(cs, t, 1, SchedulerConfig.defaults(), policy, tree, new UsageLedger(7 * 24 * HOUR, HOUR), jobs);
    }
}
