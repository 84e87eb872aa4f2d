package dev.allot.budget;

import dev.allot.budget.hours.HourlyLedger;
import dev.allot.budget.jobs.JobBook;
import dev.allot.budget.nodes.NodeBoard;
import dev.allot.budget.queue.QueueBoard;
import dev.allot.budget.tree.Account;
import dev.allot.budget.tree.BudgetTree;
import dev.allot.budget.tree.ClusterCapacity;
import dev.allot.budget.tree.UsageBook;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Everything this service knows, all of it a projection of the log: the budget tree, cluster
 * capacities, rolling usage, hourly usage and demand, jobs, queues and nodes. Only the log consumer writes the tree; HTTP threads
 * read immutable tree snapshots.
 */
@ApplicationScoped
public class LogView {

    private volatile BudgetTree tree = BudgetTree.empty();
    private final ClusterCapacity capacity = new ClusterCapacity();
    private final UsageBook usage = new UsageBook();
    private final JobBook jobs;
    private final QueueBoard queues = new QueueBoard();
    private final NodeBoard nodes = new NodeBoard();
    private final HourlyLedger hours = new HourlyLedger();

    public LogView() {
        this(JobBook.DEFAULT_KEEP_WHOLE);
    }

    @Inject
    public LogView(@ConfigProperty(name = "allot.budget.jobs-kept-whole",
            defaultValue = "" + JobBook.DEFAULT_KEEP_WHOLE) int jobsKeptWhole) {
        jobs = new JobBook(jobsKeptWhole);
    }

    public BudgetTree tree() {
        return tree;
    }

    public void budgetDefined(Account account) {
        tree = tree.define(account);
    }

    public void budgetRemoved(String path) {
        tree = tree.remove(path);
    }

    public ClusterCapacity capacity() {
        return capacity;
    }

    public UsageBook usage() {
        return usage;
    }

    public JobBook jobs() {
        return jobs;
    }

    public QueueBoard queues() {
        return queues;
    }

    public NodeBoard nodes() {
        return nodes;
    }

    public HourlyLedger hours() {
        return hours;
    }
}
