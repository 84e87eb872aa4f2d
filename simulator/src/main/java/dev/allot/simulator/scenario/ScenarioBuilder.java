package dev.allot.simulator.scenario;

import dev.allot.core.contract.Contract;
import dev.allot.simulator.trace.TraceJob;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.TreeSet;

/**
 * Builds a {@link Scenario} from trace jobs.
 *
 * <ol>
 *   <li>Keep the trace jobs submitted within the simulated span [0, warm-up + days).</li>
 *   <li>Teams = the teams of those jobs. Budget tree: the budgets file if given, else
 *       {@code vc_nodes.csv} if given, else equal shares; teams missing from it get the floor share
 *       ({@link BudgetFile#withTeams}).</li>
 *   <li>Add debug jobs per team ({@link DebugJobs}).</li>
 *   <li>Give trace jobs without a contract one by the {@link ContractRule}.</li>
 *   <li>Size the cluster: unless a node count is given, the fewest nodes of {@code gpusPerNode}
 *       GPUs such that offered GPU-seconds / (GPUs x period) is at most {@code load}, and at least
 *       as many nodes as the largest gang has replicas. A job offers GPUs x the part of
 *       [submit, submit + duration) inside the measured period [warm-up, warm-up + days).</li>
 * </ol>
 */
public final class ScenarioBuilder {
    private List<TraceJob> trace = List.of();
    private Path budgetsFile;
    private Path vcNodes;
    private double load = 2.5;
    private int nodes = 0;
    private int gpusPerNode = 8;
    private double days = 30;
    private long seed = 1;
    private ContractRule rule;
    private double debugPerTeamPerHour = DebugJobs.DEFAULT_PER_TEAM_PER_HOUR;
    private double largePerDay = 0;
    private double lookbackDays = 7;
    private double maxMinRuntimeHours = Contract.MAX_MIN_RUNTIME_SECONDS / 3600.0;
    private double warmupDays = 0;
    private double checkpointOnNotice = 0;

    public ScenarioBuilder trace(List<TraceJob> jobs) {
        this.trace = jobs;
        return this;
    }

    public ScenarioBuilder budgetsFile(Path p) {
        this.budgetsFile = p;
        return this;
    }

    public ScenarioBuilder vcNodes(Path p) {
        this.vcNodes = p;
        return this;
    }

    public ScenarioBuilder load(double x) {
        if (!(x > 0)) {
            throw new IllegalArgumentException("--load must be > 0");
        }
        this.load = x;
        return this;
    }

    public ScenarioBuilder nodes(int n) {
        this.nodes = n;
        return this;
    }

    public ScenarioBuilder gpusPerNode(int g) {
        this.gpusPerNode = g;
        return this;
    }

    public ScenarioBuilder days(double d) {
        if (!(d > 0)) {
            throw new IllegalArgumentException("--days must be > 0");
        }
        this.days = d;
        return this;
    }

    public ScenarioBuilder seed(long s) {
        this.seed = s;
        return this;
    }

    public ScenarioBuilder rule(ContractRule r) {
        this.rule = r;
        return this;
    }

    /** Synthetic 64-GPU jobs per day ({@link LargeJobs}); 0 adds none. */
    public ScenarioBuilder largePerDay(double rate) {
        if (rate < 0) {
            throw new IllegalArgumentException("--large-per-day must be >= 0");
        }
        this.largePerDay = rate;
        return this;
    }

    public ScenarioBuilder debugPerTeamPerHour(double rate) {
        this.debugPerTeamPerHour = rate;
        return this;
    }

    public ScenarioBuilder lookbackDays(double d) {
        this.lookbackDays = d;
        return this;
    }

    public ScenarioBuilder maxMinRuntimeHours(double h) {
        this.maxMinRuntimeHours = h;
        return this;
    }

    /** Simulated days before the measured period starts (their figures are not counted). */
    public ScenarioBuilder warmupDays(double d) {
        if (d < 0) {
            throw new IllegalArgumentException("--warmup-days must be >= 0");
        }
        this.warmupDays = d;
        return this;
    }

    /** Share of resumable jobs that checkpoint when told to stop ({@link Scenario#checkpointsOnNotice}). */
    public ScenarioBuilder checkpointOnNotice(double fraction) {
        if (!(fraction >= 0 && fraction <= 1)) {
            throw new IllegalArgumentException("--checkpoint-on-notice must be in 0..1, not " + fraction);
        }
        this.checkpointOnNotice = fraction;
        return this;
    }

    public Scenario build() {
        long warmup = Math.round(warmupDays * 86400);
        long period = warmup + Math.round(days * 86400);
        List<TraceJob> inPeriod = new ArrayList<>();
        TreeSet<String> teams = new TreeSet<>();
        for (TraceJob j : trace) {
            if (j.submitSeconds() < period) {
                inPeriod.add(j);
                teams.add(j.team());
            }
        }
        BudgetFile tree;
        if (budgetsFile != null) {
            tree = BudgetFile.fromFile(budgetsFile);
        } else if (vcNodes != null) {
            tree = BudgetFile.fromVcNodes(vcNodes);
        } else {
            tree = BudgetFile.equalShares(teams);
        }
        tree = tree.withTeams(teams);
        ContractRule r = rule != null ? rule : ContractRule.defaults(maxMinRuntimeHours);
        List<TraceJob> debug = DebugJobs.generate(List.copyOf(teams), period, debugPerTeamPerHour, seed);
        // generated large jobs count as trace jobs: they stand in for history the trace lacks
        inPeriod.addAll(LargeJobs.generate(List.copyOf(teams), period, largePerDay, seed));
        List<SimJob> jobs = contracts(inPeriod, debug, r, seed);
        long offered = 0;
        int maxReplicas = 1;
        int maxGpr = 1;
        for (SimJob j : jobs) {
            long from = Math.max(warmup, j.submitSeconds());
            long to = Math.min(period, j.submitSeconds() + j.durationSeconds());
            offered += (long) j.gpus() * Math.max(0, to - from);
            maxReplicas = Math.max(maxReplicas, j.replicas());
            maxGpr = Math.max(maxGpr, j.gpusPerReplica());
        }
        if (maxGpr > gpusPerNode) {
            throw new IllegalArgumentException("a job needs " + maxGpr + " GPUs per replica, nodes have " + gpusPerNode);
        }
        int n = nodes;
        if (n <= 0) {
            n = (int) Math.ceil(offered / (load * (period - warmup) * gpusPerNode) - 1e-9);
            n = Math.max(n, maxReplicas);
        }
        double offeredLoad = offered / ((double) n * gpusPerNode * (period - warmup));
        return new Scenario(jobs, tree, List.copyOf(teams), n, gpusPerNode, period - warmup, offeredLoad, seed, r,
                Math.round(lookbackDays * 86400), Math.round(maxMinRuntimeHours * 3600), inPeriod.size(), debug.size(),
                warmup, checkpointOnNotice);
    }

    /** Trace jobs through the rule, debug jobs as generated, sorted by submit time then id. */
    public static List<SimJob> contracts(List<TraceJob> trace, List<TraceJob> debug, ContractRule rule, long seed) {
        List<SimJob> jobs = new ArrayList<>(trace.size() + debug.size());
        for (TraceJob t : trace) {
            jobs.add(rule.apply(t, seed));
        }
        for (TraceJob t : debug) {
            jobs.add(rule.apply(t, seed));
        }
        jobs.sort(Comparator.comparingLong(SimJob::submitSeconds).thenComparing(SimJob::jobId));
        return jobs;
    }
}
