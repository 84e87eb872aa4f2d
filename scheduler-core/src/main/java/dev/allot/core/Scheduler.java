package dev.allot.core;

import dev.allot.core.explain.AccountUsage;
import dev.allot.core.explain.RunningExplanation;
import dev.allot.core.explain.WaitingExplanation;
import dev.allot.core.policy.BudgetPolicy;
import dev.allot.core.policy.BudgetView;
import dev.allot.core.policy.SchedulingPolicy;
import java.util.Collection;
import java.util.List;
import java.util.Optional;

/**
 * The scheduling core's facade. Single-threaded: one caller applies events and runs passes in
 * order. Time is always passed in as epoch milliseconds; the core never reads a clock.
 *
 * <p>Events ({@code submit}, {@code cancel}, {@code defineBudget}, {@code registerNode}, ...) change
 * state; {@link #schedule(long)} runs one pass and returns the decisions in the order to carry
 * them out. Decisions taken by the core (placements, preemptions, releases) are already applied
 * to the core's state when returned: the caller does not feed them back. Events reported by
 * nodes ({@link #jobStarted}, {@link #jobFinished}, ...) are facts the core records.
 *
 * <p>Determinism: the same calls with the same arguments in the same order give the same
 * decisions (all internal iteration is over sorted or insertion-ordered structures).
 */
public final class Scheduler {

    private final SchedulerConfig config;
    private final SchedulingPolicy policy;

    /** Allot's budget policy and default tunables. */
    public Scheduler() {
        this(SchedulerConfig.defaults());
    }

    public Scheduler(SchedulerConfig config) {
        this(config, new BudgetPolicy(config.preemptionMargin()));
    }

    public Scheduler(SchedulerConfig config, SchedulingPolicy policy) {
        this.config = config;
        this.policy = policy;
    }

    public SchedulerConfig config() {
        return config;
    }

    public SchedulingPolicy policy() {
        return policy;
    }

    // ---------------------------------------------------------------- budgets

    /**
     * Defines or changes an account: its parent (null for a root) and its share among siblings.
     * Applies from {@code atMillis} on. An unknown parent is created as a root with share 1.
     */
    public void defineBudget(long atMillis, String account, String parent, double share) {
        throw new UnsupportedOperationException("in progress");
    }

    /** Removes an account and its subtree from {@code atMillis} on. Their waiting jobs rank last. */
    public void removeBudget(long atMillis, String account) {
        throw new UnsupportedOperationException("in progress");
    }

    /** Usage reported for an interval (service feed; the simulator may use it too). */
    public void recordUsage(UsageRecord usage) {
        throw new UnsupportedOperationException("in progress");
    }

    // ---------------------------------------------------------------- nodes

    /**
     * A node registers. A new node starts at epoch 1; a node registering again after it was lost
     * is fenced: it gets a new epoch and starts empty (its stale jobs are to be killed by the
     * caller). A live node registering again keeps its state. Returns the node's epoch.
     */
    public long registerNode(long atMillis, NodeSpec node) {
        throw new UnsupportedOperationException("in progress");
    }

    /** Stop placing work on the node; its jobs are released as their contracts allow. */
    public void drainNode(long atMillis, String nodeId) {
        throw new UnsupportedOperationException("in progress");
    }

    /** The node takes work again. */
    public void undrainNode(long atMillis, String nodeId) {
        throw new UnsupportedOperationException("in progress");
    }

    /**
     * The node missed its heartbeats: every job with a replica on it goes back to waiting (a
     * {@link Decision.Requeue} is emitted by the next pass) and its capacity leaves the cluster.
     */
    public void nodeLost(long atMillis, String nodeId) {
        throw new UnsupportedOperationException("in progress");
    }

    // ---------------------------------------------------------------- jobs

    /**
     * A job is submitted. Invalid jobs (minimum runtime out of 0..max, no GPUs, unknown cluster
     * shape is NOT a reason: nodes may come later) are rejected by the next pass with a reason.
     * A job id seen before is ignored (idempotent replay).
     */
    public void submit(long atMillis, JobRequest job) {
        throw new UnsupportedOperationException("in progress");
    }

    /** The job is withdrawn: waiting jobs finish at once, running jobs release their GPUs. */
    public void cancel(long atMillis, String jobId) {
        throw new UnsupportedOperationException("in progress");
    }

    /** The node agent started the job (fact; the core already counts it running from its placement). */
    public void jobStarted(long atMillis, String jobId) {
        throw new UnsupportedOperationException("in progress");
    }

    /** The job wrote a checkpoint: work since then is what a preemption would lose. */
    public void jobCheckpointed(long atMillis, String jobId) {
        throw new UnsupportedOperationException("in progress");
    }

    /** The job's process exited (any exit code): it is finished and its GPUs are free. */
    public void jobExited(long atMillis, String jobId, boolean success) {
        throw new UnsupportedOperationException("in progress");
    }

    /** The job completed: it is finished and its GPUs are free. */
    public void jobFinished(long atMillis, String jobId) {
        jobExited(atMillis, jobId, true);
    }

    // ---------------------------------------------------------------- time and passes

    /**
     * Moves the core's time to {@code nowMillis}: with {@link UsageFeed#RUNNING_JOBS} running jobs
     * are charged up to now. {@link #schedule} calls this itself. Time never goes back: earlier
     * values are ignored.
     */
    public void advanceTo(long nowMillis) {
        throw new UnsupportedOperationException("in progress");
    }

    /** Runs one scheduling pass over every cluster (sorted by name) and returns its decisions in order. */
    public List<Decision> schedule(long nowMillis) {
        throw new UnsupportedOperationException("in progress");
    }

    // ---------------------------------------------------------------- queries

    public Optional<JobView> job(String jobId) {
        throw new UnsupportedOperationException("in progress");
    }

    /** All jobs ever submitted, in submission order. */
    public Collection<JobView> jobs() {
        throw new UnsupportedOperationException("in progress");
    }

    /** Waiting jobs of a cluster in the order of the last pass (new arrivals at the end). */
    public List<JobView> waiting(String cluster) {
        throw new UnsupportedOperationException("in progress");
    }

    public Optional<NodeView> node(String nodeId) {
        throw new UnsupportedOperationException("in progress");
    }

    /** All nodes, sorted by id. */
    public Collection<NodeView> nodes() {
        throw new UnsupportedOperationException("in progress");
    }

    /** Clusters known (from nodes or jobs), sorted. */
    public List<String> clusters() {
        throw new UnsupportedOperationException("in progress");
    }

    public BudgetView budgets() {
        throw new UnsupportedOperationException("in progress");
    }

    /** Window usage, entitlement and ratio of an account on a cluster at the core's current time. */
    public AccountUsage usage(String cluster, String account) {
        throw new UnsupportedOperationException("in progress");
    }

    /** Why a waiting job waits, as seen by the last pass. Empty if the job is not waiting. */
    public Optional<WaitingExplanation> explainWaiting(String jobId) {
        throw new UnsupportedOperationException("in progress");
    }

    /** Protected until when, or preemptible now. Empty if the job is not running. */
    public Optional<RunningExplanation> explainRunning(String jobId) {
        throw new UnsupportedOperationException("in progress");
    }

    /** The core's current time (the latest time passed in). */
    public long nowMillis() {
        throw new UnsupportedOperationException("in progress");
    }
}
