package dev.allot.simulator.whatif;

import dev.allot.core.Goodput;
import dev.allot.core.metrics.JobClass;
import dev.allot.core.metrics.OwedHours;
import dev.allot.core.metrics.Percentiles;
import dev.allot.core.ordering.DebugLane;
import dev.allot.core.policy.SchedulingPolicy;
import dev.allot.simulator.engine.EventSink;
import dev.allot.simulator.engine.RunResult;
import dev.allot.simulator.engine.Simulation;
import dev.allot.simulator.policy.Policies;
import dev.allot.simulator.scenario.BudgetFile;
import dev.allot.simulator.scenario.ContractRule;
import dev.allot.simulator.scenario.Scenario;
import dev.allot.simulator.scenario.ScenarioBuilder;
import dev.allot.simulator.scenario.SimJob;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Replays a {@link LogTrace.Trace} through the simulator twice: the tree as recorded with the budget policy (what
 * the scheduler-service runs), and the tree with the proposed changes under the proposed policy; and gives, per
 * team, the figures of both runs side by side.
 *
 * <p>The replay's trace declares every contract (minimum runtime, resumable) as recorded, so no contract rule is
 * drawn; no synthetic debug or large jobs are added; the core is given no duration hints (the live scheduler knew
 * only what jobs declared).
 */
public final class WhatIf {

    public static final String RECORDED_POLICY = "budget";

    /** Per team, one run's figures. Hours are GPU-hours; waits in seconds (NaN-free: 0 for a class without jobs). */
    public record TeamFigures(double owedGpuHours, double deliveredGpuHours, double usefulGpuHours,
            Map<JobClass, Double> waitP50Seconds, Map<JobClass, Double> waitP90Seconds, Map<JobClass, Integer> jobs,
            int preemptions, int completed) {
    }

    /** One run: its result (for the report) and its per-team figures. */
    public record Run(String label, String policy, Scenario scenario, RunResult result, Map<String, TeamFigures> teams) {
    }

    public record Outcome(Run before, Run after, LogTrace.Trace trace) {
    }

    /** The simulator's knobs a what-if exposes; the rest are the scheduler's defaults. */
    public record Settings(double lookbackDays, double checkpointMinutes, double preemptionMargin) {
        public static Settings defaults() {
            return new Settings(7, 30, 0.1);
        }
    }

    private WhatIf() {
    }

    /**
     * @param days the window's length (the trace's submit times are seconds from its start)
     * @param proposed the tree with the proposed changes (the recorded one when only the policy changes)
     */
    public static Outcome run(LogTrace.Trace trace, double days, BudgetFile proposed, String policy, Settings settings) {
        if (!Policies.ALL.contains(policy)) {
            throw new IllegalArgumentException("--policy " + policy + ": unknown; known: " + String.join(", ", Policies.ALL));
        }
        Scenario before = scenario(trace, days, trace.budgets(), settings);
        Scenario after = scenario(trace, days, proposed, settings);
        Run b = simulate("as recorded", RECORDED_POLICY, before, settings);
        Run a = simulate("proposed", policy, after, settings);
        return new Outcome(b, a, trace);
    }

    static Scenario scenario(LogTrace.Trace trace, double days, BudgetFile tree, Settings settings) {
        // every trace job declares its contract: the rule is never drawn (its bounds only satisfy the builder)
        ContractRule rule = new ContractRule("recorded", 0, 0, 0, 8);
        return new ScenarioBuilder().trace(trace.jobs()).nodes(trace.nodes()).gpusPerNode(trace.gpusPerNode())
                .days(days).warmupDays(0).seed(1).rule(rule).debugPerTeamPerHour(0).largePerDay(0)
                .lookbackDays(settings.lookbackDays()).budgetsFile(null).build().withBudgets(tree);
    }

    private static Run simulate(String label, String policyName, Scenario sc, Settings settings) {
        SchedulingPolicy policy = Policies.create(policyName, sc, settings.preemptionMargin(), 0);
        Simulation.Options opts = new Simulation.Options(1, 300, Math.max(1, Math.round(settings.checkpointMinutes() * 60)),
                false, DebugLane.defaults(), Goodput.defaults(), dev.allot.core.SchedulerConfig.defaults()
                        .maxReservationsPerCluster());
        TeamSink sink = new TeamSink(sc);
        RunResult r = new Simulation(sc, policy, "default", opts, sink, null).run();
        RunResult named = new RunResult(label + " (" + policyName + ")", r.variant(), r.metrics(), r.result(),
                r.submitted(), r.finished(), r.runningAtEnd(), r.waitingAtEnd(), r.rejected(), r.passes(),
                r.preemptions(), r.wallMillis(), r.preemptionsOfUnallocated(), r.lostGpuHoursOfUnallocated());
        return new Run(label, policyName, sc, named, sink.figures(r, sc));
    }

    /** Collects per team: waits (submit to first placement; still waiting: so far), preemptions, completions. */
    private static final class TeamSink implements EventSink {
        private final Map<String, SimJob> jobs = new HashMap<>();
        private final Map<String, Double> firstPlaced = new HashMap<>();
        private final Map<String, Integer> preemptions = new TreeMap<>();
        private final Map<String, Integer> completed = new TreeMap<>();

        TeamSink(Scenario sc) {
            sc.jobs().forEach(j -> jobs.put(j.jobId(), j));
        }

        @Override
        public void event(double timeSeconds, String jobId, String team, String event, int gpus, String nodes) {
            switch (event) {
                case "place" -> firstPlaced.putIfAbsent(jobId, timeSeconds);
                case "preempt" -> preemptions.merge(team, 1, Integer::sum);
                case "complete" -> completed.merge(team, 1, Integer::sum);
                default -> {
                }
            }
        }

        Map<String, TeamFigures> figures(RunResult r, Scenario sc) {
            Map<String, List<Double>> waits = new HashMap<>();
            TreeSet<String> teams = new TreeSet<>(sc.teams());
            for (SimJob j : sc.jobs()) {
                Double placed = firstPlaced.get(j.jobId());
                double w = (placed != null ? placed : sc.spanSeconds()) - j.submitSeconds();
                waits.computeIfAbsent(j.team() + "\u0000" + j.jobClass(), k -> new ArrayList<>()).add(w);
            }
            Map<String, OwedHours.Team> owed = new HashMap<>();
            r.result().owed().teams().forEach(t -> owed.put(t.team(), t));
            Map<String, OwedHours.Team> useful = new HashMap<>();
            r.result().goodput().owedUseful().teams().forEach(t -> useful.put(t.team(), t));
            Map<String, TeamFigures> out = new TreeMap<>();
            for (String team : teams) {
                Map<JobClass, Double> p50 = new EnumMap<>(JobClass.class);
                Map<JobClass, Double> p90 = new EnumMap<>(JobClass.class);
                Map<JobClass, Integer> counts = new EnumMap<>(JobClass.class);
                for (JobClass c : JobClass.values()) {
                    List<Double> ws = waits.getOrDefault(team + "\u0000" + c, List.of());
                    double[] arr = ws.stream().mapToDouble(Double::doubleValue).toArray();
                    p50.put(c, arr.length == 0 ? 0 : Percentiles.of(arr, 0.5));
                    p90.put(c, arr.length == 0 ? 0 : Percentiles.of(arr, 0.9));
                    counts.put(c, arr.length);
                }
                OwedHours.Team o = owed.get(team);
                OwedHours.Team u = useful.get(team);
                out.put(team, new TeamFigures(o == null ? 0 : o.owedGpuHours(), o == null ? 0 : o.deliveredGpuHours(),
                        u == null ? 0 : u.deliveredGpuHours(), p50, p90, counts, preemptions.getOrDefault(team, 0),
                        completed.getOrDefault(team, 0)));
            }
            return out;
        }
    }
}
