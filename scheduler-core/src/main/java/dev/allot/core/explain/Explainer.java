package dev.allot.core.explain;

import dev.allot.core.ReplicaPlacement;
import dev.allot.core.ordering.DebugLane;
import dev.allot.core.ordering.PassOrder;
import dev.allot.core.policy.AccountRanking;
import dev.allot.core.policy.BudgetView;
import dev.allot.core.policy.SchedulingPolicy;
import dev.allot.core.state.ClusterState;
import dev.allot.core.state.Job;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Explanations in words: why a waiting job waits (from the last pass's explanation book, or
 * derived from its order for jobs the walk skipped or stopped before), why a running job is
 * protected or not, and the reason of a placement. Read-only: asking changes nothing.
 */
public final class Explainer {
    /** What holds unallocated work while it keeps off open nodes (Goodput.unallocatedBesideBacklog false). */
    public static final String UNALLOCATED_KEPT_OFF = "unallocated work keeps off open nodes while allocated work"
            + " waits for them (it would be displaced at the next chance); it may use nodes held for the debug lane"
            + " or reserved nodes it may backfill";

    private Explainer() {
    }

    /** Why the waiting job waits, as seen by the last pass over its cluster. */
    public static WaitingExplanation waiting(Job j, ClusterState cs, BudgetView tree) {
        String jobId = j.jobId();
        if (cs.order() == null || j.listedIn() == null) {
            return new WaitingExplanation(jobId, j.cluster(), 0, Hold.NOT_YET_SCHEDULED, List.of(), "", null, -1,
                    "waiting for the next scheduling pass");
        }
        ExplanationBook.Note note = cs.explanations.noteAt(j.waitingSlot());
        int position;
        Hold hold;
        String missing;
        String reservedFor;
        int openNodesSeen = 0;
        if (note.passNo == cs.lastPassNo()) {
            position = note.position;
            hold = note.hold;
            missing = note.missing;
            reservedFor = note.reservedFor;
            openNodesSeen = note.openNodesSeen;
        } else {
            // the last pass skipped this job's account or stopped walking before it: what the walk
            // would have recorded
            PassOrder.Skip skip = cs.order().skipOf(j);
            hold = Hold.MISSING_RESOURCE;
            reservedFor = null;
            int replicas = j.request().replicas();
            int gpus = j.request().gpusPerReplica();
            int able = Math.min(cs.ableNodes(gpus), replicas);
            if (able < replicas) { // as the visit's shape check would have said
                hold = Hold.NO_SUCH_SHAPE;
            }
            if (skip != null) {
                position = cs.order().positionIn(skip, j);
                missing = j.unallocated() && skip.unallocatedKeptOff() ? UNALLOCATED_KEPT_OFF : null;
                openNodesSeen = skip.openNodes(gpus);
            } else {
                position = cs.order().positionAfterStop(j);
                missing = j.unallocated() && cs.order().stoppedWithUnallocatedKeptOff() ? UNALLOCATED_KEPT_OFF
                        : replicas + " nodes with " + gpus
                                + " free GPUs; no GPU is free and jobs ranked ahead found nothing they may preempt";
            }
            if (hold == Hold.NO_SUCH_SHAPE) {
                missing = noSuchShape(replicas, gpus, cs.name, able);
            }
        }
        List<AccountRatio> ahead = cs.lastRanking().aheadOf(j.account());
        StringBuilder b = new StringBuilder();
        b.append("position ").append(position).append(" on ").append(j.cluster()).append(": ");
        String missingWords = missing != null ? missing
                : j.request().replicas() + " nodes with " + j.request().gpusPerReplica() + " free GPUs; "
                        + openNodesSeen + " such nodes free and nothing it may preempt";
        b.append(switch (hold) {
            case MISSING_RESOURCE -> "missing " + missingWords;
            case RESERVATION -> missing;
            case WAITING_FOR_RESERVATION -> "nodes are reserved for it: " + missing;
            case ADMISSION_LIMIT -> "held by the " + missing;
            case NO_SUCH_SHAPE -> "no such shape: needs " + missing;
            case NOT_YET_SCHEDULED -> "not yet scheduled";
        });
        if (!tree.exists(j.account())) {
            b.append("; account ").append(j.account()).append(" has no budget, its jobs rank last");
        } else if (!ahead.isEmpty()) {
            b.append("; accounts ranked ahead: ").append(ahead.stream().map(AccountRatio::toString)
                    .collect(Collectors.joining(", ")));
        }
        return new WaitingExplanation(jobId, j.cluster(), position, hold, ahead, missingWords, reservedFor,
                cs.lastPassAt(), b.toString());
    }

    /** Protected until when, or preemptible now. */
    public static RunningExplanation running(Job j, SchedulingPolicy policy, long now) {
        String jobId = j.jobId();
        long until = j.protectedUntilMillis();
        if (j.unallocated()) {
            return new RunningExplanation(jobId, until, true,
                    "unallocated: free and preemptible at any time by allocated work");
        }
        if (!policy.contractsProtect()) {
            return new RunningExplanation(jobId, until, true, "policy " + policy.name() + " does not protect contracts");
        }
        boolean preemptible = now >= until;
        return new RunningExplanation(jobId, until, preemptible, preemptible
                ? "past its protected window (ended " + ReasonFormat.time(until)
                        + "): preemptible by work of accounts ranking above its own by the margin"
                : "protected until " + ReasonFormat.time(until) + " (minimum runtime "
                        + ReasonFormat.duration(j.request().minRuntimeMillis()) + ")");
    }

    /** The reason of a placement just made: where, how, what it is charged, whom it ranked behind. */
    public static String placed(Job j, int position, AccountRanking ranking, String how, DebugLane lane) {
        StringBuilder b = new StringBuilder();
        b.append("position ").append(position).append(" on ").append(j.cluster()).append(", ")
                .append(j.request().replicas()).append(" x ").append(j.request().gpusPerReplica()).append(" GPUs on ")
                .append(j.placement().stream().map(ReplicaPlacement::nodeId).collect(Collectors.joining(",")))
                .append(" using ").append(how).append("; ");
        if (j.allocated()) {
            b.append("allocated: charged to ").append(j.account()).append(", protected until ")
                    .append(ReasonFormat.time(j.protectedUntilMillis()));
        } else {
            b.append("unallocated: free, preemptible at any time by allocated work");
        }
        if (j.inLane()) {
            b.append("; debug lane: minimum runtime ").append(ReasonFormat.duration(j.request().minRuntimeMillis()))
                    .append(" and ").append(j.gpus()).append(" GPUs, walked before the fair-share order (")
                    .append(lane.gpusPerAccount()).append(" GPUs per account at most)");
            return b.toString();
        }
        List<AccountRatio> ahead = ranking.aheadOf(j.account());
        if (!ahead.isEmpty()) {
            b.append("; ranked behind ").append(ahead);
        }
        return b.toString();
    }

    /** A reservation's due time in words. */
    public static String due(long dueAt) {
        return dueAt == Long.MAX_VALUE ? "unknown (jobs there have no known end)" : ReasonFormat.time(dueAt);
    }

    /** What the shape check says of a job no live nodes can take (the visit's step (a)). */
    public static String noSuchShape(int replicas, int gpus, String cluster, int able) {
        return replicas + " live nodes with at least " + gpus + " GPUs; cluster " + cluster + " has " + able;
    }
}
