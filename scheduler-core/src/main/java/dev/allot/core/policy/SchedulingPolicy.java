package dev.allot.core.policy;

import dev.allot.core.ChargeMode;
import dev.allot.core.JobView;
import java.util.Comparator;

/**
 * The pluggable part of scheduling. The core owns state, placement (gangs, best fit), the
 * mechanics of preemption, reservations, drain and explanations; a policy decides:
 * <ol>
 *   <li>how accounts rank ({@link #rankAccounts}) and how jobs of one rank are ordered ({@link #withinAccount});</li>
 *   <li>whether a job may start now at all (admission limits, {@link #admits});</li>
 *   <li>whether contracts protect allocated jobs during their minimum runtime ({@link #contractsProtect});</li>
 *   <li>whether a job may preempt ({@link #mayPreempt}) and whom ({@link #mayDisplace});</li>
 *   <li>whether blocked top-ranked jobs get nodes reserved ({@link #reservesForBlockedJobs});</li>
 *   <li>whether small short debug jobs go first, within bounds ({@link #hasDebugLane}).</li>
 * </ol>
 * The default is {@link BudgetPolicy} (Allot). Implementations must be deterministic: the same
 * context gives the same answers. They are called on the scheduling thread only.
 */
public interface SchedulingPolicy {

    /** Within one account rank: the job's own priority (higher first), then submit time, then job id. */
    Comparator<JobView> PRIORITY_THEN_SUBMIT = (a, b) -> {
        // spelled out rather than chained: every pass inserts each arrival by binary search with it
        int c = Integer.compare(-a.request().priority(), -b.request().priority());
        if (c != 0) {
            return c;
        }
        c = Long.compare(a.queuedSinceMillis(), b.queuedSinceMillis());
        return c != 0 ? c : a.jobId().compareTo(b.jobId());
    };

    /** Submit time, then job id (FIFO; ignores job priority). */
    Comparator<JobView> FIFO = Comparator.comparingLong(JobView::queuedSinceMillis).thenComparing(JobView::jobId);

    /** Short name, e.g. "budget", "priority", "quota", "fairshare-decay". */
    String name();

    /** Ranks the accounts of {@code ctx.cluster()} for this pass. Called once per cluster per pass. */
    AccountRanking rankAccounts(PolicyContext ctx);

    /** Order of jobs whose accounts share a rank. Must be a total order (end with the job id). */
    default Comparator<JobView> withinAccount() {
        return PRIORITY_THEN_SUBMIT;
    }

    /**
     * Admission: may this waiting job start now (e.g. per-team GPU limits)? Checked before
     * placement. A policy that overrides this must also say so in {@link #limitsAdmission}.
     */
    default boolean admits(JobView job, PolicyContext ctx) {
        return true;
    }

    /**
     * Whether {@link #admits} may ever say no. {@code false} (the default, with the default
     * {@code admits}) lets a pass skip whole accounts none of whose jobs could start, without asking
     * for each; a policy with admission limits returns {@code true}.
     */
    default boolean limitsAdmission() {
        return false;
    }

    /** Whether allocated jobs are protected from preemption until placement + minimum runtime. */
    default boolean contractsProtect() {
        return true;
    }

    /** Whether the top blocked job(s) of a cluster get nodes reserved. */
    default boolean reservesForBlockedJobs() {
        return true;
    }

    /**
     * Whether the holder of a reservation may displace allocated work past its protected window on
     * the nodes it holds whatever {@link #mayDisplace} says (the core keeps its no-thrash guard and
     * loss cap). Default: no.
     */
    default boolean reservationHoldersDisplace() {
        return false;
    }

    /** Whether debug-shape jobs go first within the bounds of {@code SchedulerConfig.debugLane()}. */
    default boolean hasDebugLane() {
        return false;
    }

    /**
     * Whether this policy ever preempts. {@code false} lets a pass stop walking the queue once no
     * waiting job fits in the free GPUs ({@link #mayPreempt} must then always say no).
     */
    default boolean preempts() {
        return true;
    }

    /**
     * Whether this waiting allocated job may preempt anything. Default: yes. Unallocated jobs never
     * preempt (the brief's rule); the core does not ask for them.
     */
    default boolean mayPreempt(JobView preemptor, PolicyContext ctx) {
        return preemptor.chargeMode() == ChargeMode.ALLOCATED;
    }

    /**
     * Whether {@code preemptor}'s account may displace allocated work by {@link #mayDisplace} at all
     * now, with the pass's live counts ({@link PolicyContext#allocatedGpusUnder}), apart from the
     * per-pair answer the core keeps for the pass. The core asks it once per account until the pass
     * places or displaces allocated work, so it must answer by account. Not asked for unallocated
     * victims nor for a reservation holder's right. Default: yes.
     */
    default boolean displacesAllocatedNow(JobView preemptor, PolicyContext ctx) {
        return true;
    }

    /**
     * Whether {@code preemptor} may displace the running allocated job {@code victim}, which is
     * past its protected window (or unprotected because contracts do not protect). Unallocated
     * victims are displaced by the core for any preemptor allowed by {@link #mayPreempt}, without
     * asking. The core never calls this for a victim of the preemptor's own account.
     */
    PreemptionVerdict mayDisplace(JobView preemptor, JobView victim, PolicyContext ctx);

    /**
     * For one pass: {@link #allowsDisplacing} asked by the two accounts, for a policy whose answer
     * depends on nothing else ({@link AccountPairs}). Null (the default): the core asks
     * {@code allowsDisplacing} with the jobs.
     */
    default AccountPairs accountPairs(PolicyContext ctx) {
        return null;
    }

    /**
     * {@code mayDisplace(preemptor, victim, ctx).allowed()}. The core asks this for every pair of
     * accounts a victim search meets and calls {@link #mayDisplace} only for victims it takes, so
     * the two must agree within a pass. Override to skip building reasons nobody reads.
     */
    default boolean allowsDisplacing(JobView preemptor, JobView victim, PolicyContext ctx) {
        return mayDisplace(preemptor, victim, ctx).allowed();
    }
}
