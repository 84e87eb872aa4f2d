package dev.allot.simulator;

import dev.allot.core.SchedulerConfig;
import dev.allot.core.contract.Contract;
import dev.allot.core.Goodput;
import dev.allot.core.estimate.LearnedRunTimes;
import dev.allot.core.estimate.StartEstimator;
import dev.allot.core.ordering.DebugLane;
import dev.allot.core.policy.SchedulingPolicy;
import dev.allot.simulator.engine.EventSink;
import dev.allot.simulator.engine.RunResult;
import dev.allot.simulator.engine.Simulation;
import dev.allot.simulator.engine.StartEstimates;
import dev.allot.simulator.policy.Policies;
import dev.allot.simulator.report.EventsCsv;
import dev.allot.simulator.report.HtmlReport;
import dev.allot.simulator.report.Progress;
import dev.allot.simulator.report.SummaryJson;
import dev.allot.simulator.scenario.ContractRule;
import dev.allot.simulator.scenario.Scenario;
import dev.allot.simulator.scenario.ScenarioBuilder;
import dev.allot.simulator.trace.CsvTrace;
import dev.allot.simulator.trace.PhillyGavelTrace;
import dev.allot.simulator.trace.SyntheticTrace;
import dev.allot.simulator.trace.TraceJob;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code allot simulate}: replays a trace through scheduler-core under several policies. */
@Command(name = "simulate", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Replay a job trace through Allot's scheduling core on a virtual clock and compare policies.")
public final class SimulateCommand implements Callable<Integer> {

    @Option(names = "--trace", paramLabel = "DIR_OR_FILE", description = "Trace directory or file.")
    Path trace;

    @Option(names = "--format", defaultValue = "philly-gavel", description = "philly-gavel | csv (default: ${DEFAULT-VALUE}).")
    String format;

    @Option(names = "--budgets", paramLabel = "FILE",
            description = "Budget tree CSV (account,parent,share). Default: vc_nodes.csv next to a philly-gavel trace, else equal shares.")
    Path budgets;

    @Option(names = "--load", defaultValue = "2.5", description = "Size the cluster so the offered load is X times capacity (default: ${DEFAULT-VALUE}).")
    double load;

    @Option(names = "--nodes", defaultValue = "0", description = "Cluster nodes (overrides --load when > 0).")
    int nodes;

    @Option(names = "--gpus-per-node", defaultValue = "8", description = "GPUs per node (default: ${DEFAULT-VALUE}).")
    int gpusPerNode;

    @Option(names = "--days", defaultValue = "30", description = "Simulated period in days (default: ${DEFAULT-VALUE}).")
    double days;

    @Option(names = "--warmup-days", defaultValue = "-1",
            description = "Simulate this many days of the trace before the measured period; their figures are not counted "
                    + "(default: the lookback window, so the cluster is busy and every ratio has a full window when "
                    + "measuring starts; 0 measures from an empty cluster).")
    double warmupDays;

    @Option(names = "--seed", defaultValue = "1", description = "Seed of every random rule (default: ${DEFAULT-VALUE}).")
    long seed;

    @Option(names = "--policies", split = ",", defaultValue = "budget,priority,quota,fairshare-decay",
            description = "Policies to compare (default: ${DEFAULT-VALUE}).")
    List<String> policies;

    @Option(names = "--out", required = true, paramLabel = "DIR", description = "Output directory (summary.json, details.json, report.html).")
    Path out;

    @Option(names = "--events", paramLabel = "FILE", description = "Also write every job event as CSV: time_s,policy,job_id,team,event,gpus,nodes.")
    Path events;

    @Option(names = "--lookback-days", defaultValue = "7", description = "Fair-share lookback window (default: ${DEFAULT-VALUE}).")
    double lookbackDays;

    @Option(names = "--preemption-margin", defaultValue = "" + SchedulerConfig.DEFAULT_PREEMPTION_MARGIN,
            description = "Budget policy: how much higher the victim's ratio must be (default: ${DEFAULT-VALUE}).")
    double preemptionMargin;

    @Option(names = "--protected-ratio", defaultValue = "0",
            description = "Budget policy: a side of the tree whose ratio is below this keeps its running work (default: ${DEFAULT-VALUE}, off).")
    double protectedRatio;

    @Option(names = "--protected-fraction", defaultValue = "1",
            description = "Budget policy's share rule: a team displaces allocated work only while it runs less than its"
                    + " share of the cluster, and a side keeps its running work while it runs no more than this times"
                    + " its share; 0: off (default: ${DEFAULT-VALUE}, the core's).")
    double protectedFraction;

    @Option(names = "--lane-keeps-allocated", negatable = true, defaultValue = "true", fallbackValue = "true",
            description = "Goodput: where the cluster holds nodes for the debug lane, lane jobs displace unallocated work"
                    + " only, never allocated work (default: ${DEFAULT-VALUE}, the core's; --no-lane-keeps-allocated: off).")
    boolean laneKeepsAllocated;

    @Option(names = "--held-reservations", negatable = true, defaultValue = "true", fallbackValue = "true",
            description = "Goodput: a reservation whose holder may preempt is held by its job until it starts (not taken"
                    + " over, its nodes kept; default: ${DEFAULT-VALUE}, the core's; --no-held-reservations: off).")
    boolean heldReservations;

    @Option(names = "--max-loss-minutes", defaultValue = "120",
            description = "Goodput: an allocated job that would lose more than this per GPU is not preempted; 0: no cap (default: ${DEFAULT-VALUE}).")
    double maxLossMinutes;

    @Option(names = "--no-thrash-minutes", defaultValue = "60",
            description = "Goodput: after A displaces B, B may not displace A for this long; 0: off (default: ${DEFAULT-VALUE}).")
    double noThrashMinutes;

    @Option(names = "--max-reservations", defaultValue = "1",
            description = "Blocked top-ranked jobs that get nodes reserved at a time (default: ${DEFAULT-VALUE}).")
    int maxReservations;

    @Option(names = "--no-goodput",
            description = "Run the core without its goodput rules (victims by fewest GPUs, no loss cap, no thrash guard, unallocated work anywhere): the rules of before, for comparison.")
    boolean noGoodput;

    @Option(names = "--debug-lane-gpus", defaultValue = "8",
            description = "Budget policy: GPUs per team in the debug lane at a time; 0 turns the lane off (default: ${DEFAULT-VALUE}).")
    int debugLaneGpus;

    @Option(names = "--debug-reserve-one-in", defaultValue = "12",
            description = "Budget policy: hold one node in N for debug and unallocated work; 0 holds none (default: ${DEFAULT-VALUE}).")
    int debugReserveOneIn;

    @Option(names = "--max-min-runtime-hours", defaultValue = "" + Contract.MAX_MIN_RUNTIME_SECONDS / 3600, description = "Largest minimum runtime (default: ${DEFAULT-VALUE}).")
    double maxMinRuntimeHours;

    @Option(names = "--unallocated-fraction", defaultValue = "0.10",
            description = "Contract rule: share of trace jobs made unallocated (default: ${DEFAULT-VALUE}).")
    double unallocatedFraction;

    @Option(names = "--resumable-fraction", defaultValue = "0.80",
            description = "Contract rule: share of allocated trace jobs that are resumable (default: ${DEFAULT-VALUE}).")
    double resumableFraction;

    @Option(names = "--min-runtime-hours", defaultValue = "1",
            description = "Contract rule: lower bound of drawn minimum runtimes; upper bound is --max-min-runtime-hours (default: ${DEFAULT-VALUE}).")
    double minRuntimeHours;

    @Option(names = "--variants", split = ",", defaultValue = "short-contracts,more-unallocated,all-resumable",
            description = "Contract-rule variants run with the budget policy for the sensitivity section: "
                    + "short-contracts, long-contracts, more-unallocated, no-resumable, all-resumable, "
                    + "notice-F (the default rule with --checkpoint-on-notice F), or none (default: ${DEFAULT-VALUE}).")
    List<String> variants;

    @Option(names = "--large-per-day", defaultValue = "0",
            description = "Add this many synthetic 64-GPU jobs (8 x 8) per day, 2-12 h each (default: ${DEFAULT-VALUE}).")
    double largePerDay;

    @Option(names = "--debug-per-team-hour", defaultValue = "1.0",
            description = "Synthetic debug jobs: Poisson arrivals per team per hour (default: ${DEFAULT-VALUE}).")
    double debugRate;

    @Option(names = "--synthetic", defaultValue = "0", description = "Generate a synthetic trace of N jobs instead of reading --trace.")
    int synthetic;

    @Option(names = "--synthetic-teams", defaultValue = "50", description = "Teams of the synthetic trace (default: ${DEFAULT-VALUE}).")
    int syntheticTeams;

    @Option(names = "--write-trace", paramLabel = "FILE", description = "Write the trace jobs read or generated as Allot CSV.")
    Path writeTrace;

    @Option(names = "--threads", defaultValue = "0", description = "Parallel runs (default: number of cores, at most 4).")
    int threads;

    @Option(names = "--quantum-seconds", defaultValue = "1", description = "Round event times up to this (default: ${DEFAULT-VALUE}).")
    long quantumSeconds;

    @Option(names = "--tick-seconds", defaultValue = "300", description = "Coarse tick while jobs wait (default: ${DEFAULT-VALUE}).")
    long tickSeconds;

    @Option(names = "--checkpoint-minutes", defaultValue = "30", description = "Resumable jobs checkpoint this often (default: ${DEFAULT-VALUE}).")
    double checkpointMinutes;

    @Option(names = "--checkpoint-on-notice", defaultValue = "0", paramLabel = "FRACTION",
            description = "Share of resumable jobs that checkpoint within the grace period when preempted or released "
                    + "for a drain, and so lose nothing; drawn per job, seeded by (seed, job id) (default: ${DEFAULT-VALUE}).")
    double checkpointOnNotice;

    @Option(names = "--duration-hints", defaultValue = "true", negatable = true, fallbackValue = "true",
            description = "Tell the core each job's run time (used only to backfill reserved nodes; default: ${DEFAULT-VALUE}).")
    boolean durationHints;

    @Option(names = "--start-estimates", defaultValue = "false", negatable = true, fallbackValue = "true",
            description = "Measure the expected start's accuracy (at each submission and hourly while a job waits, against a Slurm-style baseline) in the policies' runs; adds startEstimate to summary.json and the report (default: ${DEFAULT-VALUE}).")
    boolean startEstimates;

    @Option(names = "--estimate-steps", defaultValue = "200,60,0.05,1800", paramLabel = "PASSES,MIN_STEP_S,FRACTION,TICK_S",
            description = "How the measured estimates' forward run steps: at most PASSES passes, ends within MIN_STEP_S seconds"
                    + " or FRACTION of the look-ahead taken together, a pass at least every TICK_S seconds (default: the"
                    + " scheduler-service's, ${DEFAULT-VALUE}).")
    String estimateSteps;

    @Option(names = "--estimate-oracle", defaultValue = "NONE", paramLabel = "TOLD",
            description = "Diagnosis only: tell the measured estimates what no live scheduler knows, the run's exact run"
                    + " times (RUN_TIMES), the trace's future submissions (ARRIVALS) or both (BOTH), to see how much of the"
                    + " error each leaves; every sample goes to start-estimates-POLICY.csv as always (default: ${DEFAULT-VALUE}).")
    StartEstimates.Oracle estimateOracle;

    @Option(names = "--estimate-run-times", defaultValue = "MEAN", paramLabel = "STATISTIC",
            description = "What stands for a team's and shape's next run in the measured estimates: the MEAN of its last"
                    + " finished runs (the scheduler-service's) or their MEDIAN (default: ${DEFAULT-VALUE}).")
    LearnedRunTimes.Statistic estimateRunTimes;

    @Option(names = "--quiet", description = "No progress output.")
    boolean quiet;

    PrintStream stdout = System.out;
    PrintStream stderr = System.err;

    /** {@code --estimate-steps}: PASSES,MIN_STEP_S,FRACTION,TICK_S. */
    static StartEstimator.Steps estimateSteps(String spec) {
        String[] p = spec.split(",");
        if (p.length != 4) {
            throw new IllegalArgumentException("--estimate-steps needs PASSES,MIN_STEP_S,FRACTION,TICK_S, e.g."
                    + " 200,60,0.05,1800; got '" + spec + "'");
        }
        try {
            return new StartEstimator.Steps(Integer.parseInt(p[0].trim()), Long.parseLong(p[1].trim()) * 1000,
                    Double.parseDouble(p[2].trim()), Long.parseLong(p[3].trim()) * 1000);
        } catch (IllegalArgumentException e) { // (NumberFormatException too)
            throw new IllegalArgumentException("--estimate-steps '" + spec + "': " + e.getMessage()
                    + " (PASSES >= 1, MIN_STEP_S >= 0, FRACTION >= 0, TICK_S > 0)");
        }
    }

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    /** The command with an error handler that prints one line for bad input instead of a stack trace. */
    public static CommandLine commandLine() {
        CommandLine cl = new CommandLine(new SimulateCommand());
        cl.setExecutionExceptionHandler((ex, cmd, parsed) -> {
            if (ex instanceof IllegalArgumentException || ex instanceof java.io.UncheckedIOException
                    || ex instanceof IOException) {
                cmd.getErr().println("simulate: " + (ex instanceof java.io.UncheckedIOException u
                        ? u.getCause().getClass().getSimpleName() + ": " + u.getCause().getMessage()
                        : ex.getMessage()));
                return 2;
            }
            throw ex;
        });
        return cl;
    }

    @Override
    public Integer call() throws Exception {
        long wallStart = System.nanoTime();
        if (maxMinRuntimeHours < 0 || minRuntimeHours < 0) {
            throw new CommandLine.ParameterException(new CommandLine(this), "runtimes must be >= 0");
        }
        for (String p : policies) {
            if (!Policies.ALL.contains(p)) {
                throw new CommandLine.ParameterException(new CommandLine(this),
                        "unknown policy " + p + "; known: " + String.join(",", Policies.ALL));
            }
        }
        List<TraceJob> jobs = loadTrace();
        if (writeTrace != null) {
            try (BufferedWriter w = Files.newBufferedWriter(writeTrace, StandardCharsets.UTF_8)) {
                SyntheticTrace.writeCsv(jobs, w);
            }
        }
        ContractRule baseRule = new ContractRule("default", unallocatedFraction, resumableFraction,
                Math.min(minRuntimeHours, maxMinRuntimeHours), maxMinRuntimeHours);
        ScenarioBuilder builder = new ScenarioBuilder().trace(jobs).load(load).nodes(nodes).gpusPerNode(gpusPerNode)
                .days(days).warmupDays(warmupDays < 0 ? lookbackDays : warmupDays).seed(seed).rule(baseRule).debugPerTeamPerHour(debugRate).largePerDay(largePerDay).lookbackDays(lookbackDays)
                .maxMinRuntimeHours(maxMinRuntimeHours).budgetsFile(budgets).vcNodes(vcNodes())
                .checkpointOnNotice(checkpointOnNotice);
        Scenario base = builder.build();
        List<Scenario> variantScenarios = new ArrayList<>();
        for (String v : variants) {
            if (v.equals("none") || v.isBlank()) {
                continue;
            }
            if (v.startsWith(NOTICE_VARIANT)) {
                // the same jobs and contracts; only the share that checkpoints on notice changes
                variantScenarios.add(base.withJobs(base.jobs(), base.rule().named(v))
                        .withCheckpointOnNotice(noticeFraction(v)));
                continue;
            }
            ContractRule r = variantRule(v, baseRule);
            variantScenarios.add(builder.nodes(base.nodes()).rule(r).build());
        }
        if (!quiet) {
            stderr.printf(Locale.ROOT, "simulate: %d jobs (%d trace, %d debug), %d teams, %d nodes x %d GPUs, %.1f days, offered load %.2f%n",
                    base.jobs().size(), base.traceJobs(), base.debugJobs(), base.teams().size(), base.nodes(),
                    base.gpusPerNode(), base.days(), base.offeredLoad());
        }

        DebugLane lane = debugLaneGpus <= 0 ? DebugLane.off()
                : new DebugLane(DebugLane.defaults().maxMinRuntimeMillis(), DebugLane.defaults().maxGpus(),
                        debugLaneGpus, debugReserveOneIn);
        Goodput rules = noGoodput ? Goodput.none()
                : Goodput.defaults().withMaxLossPerGpu(Math.round(maxLossMinutes * 60_000))
                        .withNoThrash(Math.round(noThrashMinutes * 60_000))
                        .withLaneDisplacingAllocated(!laneKeepsAllocated).withHeldReservations(heldReservations);
        Simulation.Options opts = new Simulation.Options(quantumSeconds, tickSeconds,
                Math.max(1, Math.round(checkpointMinutes * 60)), durationHints, lane, rules, maxReservations);
        List<String> names = new ArrayList<>(policies);
        List<Scenario> scenarios = new ArrayList<>();
        List<String> variantNames = new ArrayList<>();
        for (String p : policies) {
            scenarios.add(base);
            variantNames.add("default");
        }
        for (Scenario v : variantScenarios) {
            names.add("budget/" + v.rule().name());
            scenarios.add(v);
            variantNames.add(v.rule().name());
        }
        StartEstimator.Steps steps = estimateSteps(estimateSteps);
        Progress progress = new Progress(names.toArray(String[]::new), System.console() != null, quiet, stderr);
        int nThreads = threads > 0 ? threads : Math.min(4, Runtime.getRuntime().availableProcessors());
        ExecutorService pool = Executors.newFixedThreadPool(Math.max(1, nThreads), r -> {
            Thread t = new Thread(r, "simulate");
            t.setDaemon(true);
            return t;
        });
        List<Future<RunResult>> futures = new ArrayList<>();
        List<EventsCsv> sinks = new ArrayList<>();
        try {
            for (int i = 0; i < names.size(); i++) {
                boolean isVariant = i >= policies.size();
                String policyName = isVariant ? "budget" : policies.get(i);
                Scenario sc = scenarios.get(i);
                EventsCsv sink = events != null && !isVariant ? new EventsCsv(policyName) : null;
                sinks.add(sink);
                String variant = variantNames.get(i);
                var listener = progress.listener(i);
                futures.add(pool.submit(() -> {
                    SchedulingPolicy policy = Policies.create(policyName, sc, preemptionMargin, protectedRatio, protectedFraction);
                    return new Simulation(sc, policy, variant, opts, sink == null ? EventSink.NONE : sink, listener)
                            .estimatingStarts(startEstimates && !isVariant).estimating(steps, estimateOracle, estimateRunTimes).run();
                }));
            }
            List<RunResult> runs = new ArrayList<>();
            List<RunResult> variantRuns = new ArrayList<>();
            for (int i = 0; i < futures.size(); i++) {
                RunResult r;
                try {
                    r = futures.get(i).get();
                } catch (ExecutionException e) {
                    throw e.getCause() instanceof Exception ex ? ex : e;
                }
                if (i < policies.size()) {
                    runs.add(r);
                } else {
                    variantRuns.add(r);
                }
            }
            progress.finish();
            // the sensitivity table compares the default rule with the variants
            List<RunResult> sensitivity = new ArrayList<>();
            for (RunResult r : runs) {
                if (r.policy().equals("budget")) {
                    sensitivity.add(r);
                }
            }
            sensitivity.addAll(variantRuns);
            if (sensitivity.size() == 1) {
                sensitivity.clear();
            }
            Files.createDirectories(out);
            double wall = (System.nanoTime() - wallStart) / 1e9;
            Files.writeString(out.resolve("summary.json"), SummaryJson.summary(base, wall, runs));
            for (RunResult r : runs) {
                if (r.startEstimate() != null) {
                    Files.writeString(out.resolve("start-estimates-" + r.policy() + ".csv"), r.startEstimate().rowsCsv());
                }
            }
            List<RunResult> all = new ArrayList<>(runs);
            all.addAll(variantRuns);
            Files.writeString(out.resolve("details.json"), SummaryJson.details(base, all, variantScenarios));
            Files.writeString(out.resolve("report.html"), HtmlReport.render(base, wall, runs, sensitivity));
            if (events != null) {
                Path parent = events.toAbsolutePath().getParent();
                if (parent != null) {
                    Files.createDirectories(parent);
                }
                try (BufferedWriter w = Files.newBufferedWriter(events, StandardCharsets.UTF_8)) {
                    w.write(EventsCsv.HEADER);
                    for (EventsCsv s : sinks) {
                        if (s != null) {
                            w.append(s.text());
                        }
                    }
                }
            }
            printTable(runs, wall);
            return 0;
        } finally {
            pool.shutdownNow();
        }
    }

    private Path vcNodes() {
        if (budgets != null || trace == null || !format.equals("philly-gavel")) {
            return null;
        }
        Path dir = Files.isDirectory(trace) ? trace : trace.toAbsolutePath().getParent();
        Path vc = dir.resolve("vc_nodes.csv");
        return Files.exists(vc) ? vc : null;
    }

    private List<TraceJob> loadTrace() {
        if (synthetic > 0) {
            return SyntheticTrace.generate(synthetic, syntheticTeams, Math.round(days * 86400), seed, gpusPerNode);
        }
        if (trace == null) {
            throw new CommandLine.ParameterException(new CommandLine(this), "--trace or --synthetic is required");
        }
        if (!Files.exists(trace)) {
            throw new CommandLine.ParameterException(new CommandLine(this), "no such trace: " + trace);
        }
        return switch (format) {
            case "philly-gavel" -> PhillyGavelTrace.read(trace, gpusPerNode);
            case "csv" -> CsvTrace.read(trace);
            default -> throw new CommandLine.ParameterException(new CommandLine(this),
                    "--format must be philly-gavel or csv, not " + format);
        };
    }

    static final String NOTICE_VARIANT = "notice-";

    /** The fraction of a {@code notice-F} variant. */
    static double noticeFraction(String variant) {
        String f = variant.substring(NOTICE_VARIANT.length());
        try {
            double v = Double.parseDouble(f);
            if (v >= 0 && v <= 1) {
                return v;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException("variant " + variant + ": the share after notice- must be a number in 0..1");
    }

    static ContractRule variantRule(String v, ContractRule base) {
        double max = base.maxHours();
        return switch (v) {
            case "short-contracts" -> new ContractRule(v, base.unallocatedFraction(), base.resumableFraction(),
                    Math.min(0.5, max), Math.min(2, max));
            case "long-contracts" -> new ContractRule(v, base.unallocatedFraction(), base.resumableFraction(),
                    Math.min(4, max), max);
            case "more-unallocated" -> new ContractRule(v, 0.30, base.resumableFraction(), base.minHours(), max);
            case "no-resumable" -> new ContractRule(v, base.unallocatedFraction(), 0.0, base.minHours(), max);
            case "all-resumable" -> new ContractRule(v, base.unallocatedFraction(), 1.0, base.minHours(), max);
            default -> throw new IllegalArgumentException("unknown variant " + v
                    + "; known: short-contracts, long-contracts, more-unallocated, no-resumable, all-resumable, notice-F, none");
        };
    }

    private void printTable(List<RunResult> runs, double wall) {
        stdout.printf(Locale.ROOT, "%-16s %9s %9s %9s %6s %9s %9s %9s %9s %8s %9s%n", "policy", "occupancy",
                "owedMean", "owedMin", "ge95", "unalloc", "dbgP90s", "smlP90s", "lrgP90s", "preempt", "lostGPUh");
        for (RunResult r : runs) {
            var m = r.result();
            stdout.printf(Locale.ROOT, "%-16s %9.4f %9.4f %9.4f %6d %9.4f %9.0f %9.0f %9.0f %8d %9.1f%n", r.policy(),
                    m.occupancy(), m.owed().mean(), m.owed().min(), m.owed().teamsAtLeast95(), m.unallocatedShare(),
                    m.waitP90Seconds().get(dev.allot.core.metrics.JobClass.DEBUG),
                    m.waitP90Seconds().get(dev.allot.core.metrics.JobClass.SMALL),
                    m.waitP90Seconds().get(dev.allot.core.metrics.JobClass.LARGE), m.preemptions(), m.lostGpuHours());
        }
        // goodput: what the work kept, what preemption cost
        stdout.printf(Locale.ROOT, "%-16s %9s %9s %9s %9s %9s %9s %8s %8s %9s %9s %9s %9s %9s %6s%n", "policy",
                "lostShare", "usefulMn", "usefulMin", "lostAlloc", "lostUnal", "lostNonRs", "prmAlloc", "prmUnal",
                "prm/kGPUh", "dbgAllP90", "dbgUnaP90", "lrgHolP90", "holAlcP90", "cycles");
        for (RunResult r : runs) {
            var g = r.result().goodput();
            stdout.printf(Locale.ROOT, "%-16s %9.4f %9.4f %9.4f %9.1f %9.1f %9.1f %8d %8d %9.2f %9.0f %9.0f %9.0f %9.0f %6d%n",
                    r.policy(), g.lostShare(), g.owedUseful().mean(), g.owedUseful().min(), g.lostGpuHoursAllocated(),
                    g.lostGpuHoursUnallocated(), g.lostGpuHoursNonResumable(), g.preemptionsAllocated(),
                    g.preemptionsUnallocated(), g.preemptionsPer1000GpuHours(), g.debugAllocatedP90Seconds(),
                    g.debugUnallocatedP90Seconds(), g.largeHeadOfLineP90Seconds(), g.largeHeadOfLineAllocatedP90Seconds(),
                    g.cycles());
        }
        stdout.printf(Locale.ROOT, "wall %.1f s; wrote %s%n", wall, out.resolve("summary.json"));
    }
}
