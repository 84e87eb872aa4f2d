package dev.allot.schemas.catalogue;

import dev.allot.schemas.AccountDemand;
import dev.allot.schemas.BudgetEvent;
import dev.allot.schemas.BudgetUsage;
import dev.allot.schemas.DeadLetter;
import dev.allot.schemas.JobEvent;
import dev.allot.schemas.JobRequest;
import dev.allot.schemas.NodeCommand;
import dev.allot.schemas.NodeStatus;
import dev.allot.schemas.QueueSnapshot;
import dev.allot.schemas.UsageReported;
import dev.allot.schemas.catalogue.Topic.CleanupPolicy;
import java.util.List;

/**
 * The typed topic catalogue: every topic of Allot, in one place, for every service and test.
 *
 * <p>Topics that carry several event types use an <em>envelope</em> record ({@link JobRequest},
 * {@link BudgetEvent}, {@link JobEvent}, {@link NodeCommand}, {@link NodeStatus}) whose
 * {@code payload} field is an Avro union of the event records. One schema per topic keeps the
 * registry's TopicIdStrategy subject ({@code <topic>-value}) meaningful, lets consumers switch on the
 * payload type, and evolves by adding union branches (a BACKWARD compatible change).
 */
public final class Topics {

    private Topics() {
    }

    /** JobSubmitted and JobCancelRequested from people and services. One writer per job: its submitter. */
    public static final Topic<String, JobRequest> JOB_REQUESTS =
            new Topic<>("job-requests", String.class, JobRequest.class, 6, CleanupPolicy.DELETE, "job id");

    /** The budget tree; compacted, one key per account. Written only by the budget-service. */
    public static final Topic<String, BudgetEvent> BUDGETS =
            new Topic<>("budgets", String.class, BudgetEvent.class, 1, CleanupPolicy.COMPACT, "budget path");

    /** Every fact of a job's life: scheduler decisions and node agent reports. */
    public static final Topic<String, JobEvent> JOB_EVENTS =
            new Topic<>("job-events", String.class, JobEvent.class, 6, CleanupPolicy.DELETE, "job id");

    /** StartJob / StopJob for node agents, keyed by node so each node sees its commands in order. */
    public static final Topic<String, NodeCommand> NODE_COMMANDS =
            new Topic<>("node-commands", String.class, NodeCommand.class, 6, CleanupPolicy.DELETE, "node id");

    /** Node registration, heartbeats and drain lifecycle. */
    public static final Topic<String, NodeStatus> NODE_STATUS =
            new Topic<>("node-status", String.class, NodeStatus.class, 3, CleanupPolicy.DELETE, "node id");

    /** GPU-seconds per job and interval from node agents; the accounting-service re-keys by (cluster, account). */
    public static final Topic<String, UsageReported> USAGE =
            new Topic<>("usage", String.class, UsageReported.class, 6, CleanupPolicy.DELETE, "job id");

    /** Rolling 7-day usage per (cluster, account) from the accounting-service; latest value per key. */
    public static final Topic<String, BudgetUsage> BUDGET_USAGE =
            new Topic<>("budget-usage", String.class, BudgetUsage.class, 6, CleanupPolicy.COMPACT, "cluster/account");

    /** Demand per (cluster, account) and interval from the scheduler, for the owed-hours ledger. */
    public static final Topic<String, AccountDemand> ACCOUNT_DEMAND =
            new Topic<>("account-demand", String.class, AccountDemand.class, 6, CleanupPolicy.DELETE, "cluster/account");

    /** Records a consumer could not process, with the reason; never silently dropped. */
    public static final Topic<String, DeadLetter> DEAD_LETTERS =
            new Topic<>("dead-letters", String.class, DeadLetter.class, 1, CleanupPolicy.DELETE, "source topic");

    /** Each cluster's queue with positions and reasons, from the scheduler; latest snapshot per cluster. */
    public static final Topic<String, QueueSnapshot> QUEUE_STATUS =
            new Topic<>("queue-status", String.class, QueueSnapshot.class, 1, CleanupPolicy.COMPACT, "cluster");

    public static final List<Topic<String, ?>> ALL = List.of(
            JOB_REQUESTS, BUDGETS, JOB_EVENTS, NODE_COMMANDS, NODE_STATUS, USAGE, BUDGET_USAGE, ACCOUNT_DEMAND,
            QUEUE_STATUS, DEAD_LETTERS);

    /** The record key of per-account topics: {@code cluster/account}. */
    public static String accountKey(String cluster, String account) {
        return cluster + "/" + account;
    }
}
