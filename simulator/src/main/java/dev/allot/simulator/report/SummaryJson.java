package dev.allot.simulator.report;

import dev.allot.core.metrics.ClusterMetrics;
import dev.allot.core.metrics.JobClass;
import dev.allot.core.metrics.OwedHours;
import dev.allot.simulator.engine.RunResult;
import dev.allot.simulator.engine.StartEstimates;
import dev.allot.simulator.scenario.Scenario;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Writes {@code summary.json} exactly in the form (fractions in 0..1, waits in seconds)
 * and {@code details.json} with everything else (fragmentation, per-team hours, contract-rule
 * variants, counts). No JSON library: keys in a fixed order, numbers via {@link Json#num}.
 */
public final class SummaryJson {
    private SummaryJson() {
    }

    public static String summary(Scenario sc, double wallSeconds, List<RunResult> runs) {
        StringBuilder b = new StringBuilder();
        b.append("{\n  \"scenario\": ");
        scenario(b, sc);
        b.append(",\n  \"wallSeconds\": ").append(String.format(Locale.ROOT, "%.3f", wallSeconds));
        b.append(",\n  \"policies\": {");
        for (int i = 0; i < runs.size(); i++) {
            RunResult r = runs.get(i);
            b.append(i == 0 ? "\n    " : ",\n    ").append(Json.str(r.policy())).append(": ");
            policy(b, r.result(), "    ", r.startEstimate());
        }
        b.append("\n  }\n}\n");
        return b.toString();
    }

    static void scenario(StringBuilder b, Scenario sc) {
        b.append("{\"jobs\": ").append(sc.jobs().size())
                .append(", \"teams\": ").append(sc.teams().size())
                .append(", \"clusterGpus\": ").append(sc.clusterGpus())
                .append(", \"days\": ").append(Json.num(sc.days()))
                .append(", \"offeredLoad\": ").append(Json.num(sc.offeredLoad()))
                .append(", \"checkpointOnNotice\": ").append(Json.num(sc.checkpointOnNotice())).append('}');
    }

    static void policy(StringBuilder b, ClusterMetrics.Result r, String indent) {
        policy(b, r, indent, null);
    }

    /** The policy's figures, with the expected start's accuracy when it was measured. */
    static void policy(StringBuilder b, ClusterMetrics.Result r, String indent, StartEstimates.Accuracy est) {
        String in = indent + "  ";
        b.append("{\n");
        b.append(in).append("\"occupancy\": ").append(Json.num(r.occupancy())).append(",\n");
        b.append(in).append("\"owedDeliveredMean\": ").append(Json.num(r.owed().mean())).append(",\n");
        b.append(in).append("\"owedDeliveredMin\": ").append(Json.num(r.owed().min())).append(",\n");
        b.append(in).append("\"teamsAtLeast95\": ").append(r.owed().teamsAtLeast95()).append(",\n");
        b.append(in).append("\"unallocatedShare\": ").append(Json.num(r.unallocatedShare())).append(",\n");
        ClusterMetrics.Goodput g = r.goodput();
        b.append(in).append("\"waitP50Seconds\": ");
        waits(b, r.waitP50Seconds(), g.debugAllocatedP50Seconds(), g.debugUnallocatedP50Seconds());
        b.append(",\n");
        b.append(in).append("\"waitP90Seconds\": ");
        waits(b, r.waitP90Seconds(), g.debugAllocatedP90Seconds(), g.debugUnallocatedP90Seconds());
        b.append(",\n");
        b.append(in).append("\"preemptions\": ").append(r.preemptions()).append(",\n");
        b.append(in).append("\"lostGpuHours\": ").append(Json.num(r.lostGpuHours())).append(",\n");
        field(b, in, "owedUsefulMean", Json.num(g.owedUseful().mean()));
        field(b, in, "owedUsefulMin", Json.num(g.owedUseful().min()));
        field(b, in, "lostGpuHoursAllocated", Json.num(g.lostGpuHoursAllocated()));
        field(b, in, "lostGpuHoursUnallocated", Json.num(g.lostGpuHoursUnallocated()));
        field(b, in, "lostGpuHoursResumable", Json.num(g.lostGpuHoursResumable()));
        field(b, in, "lostGpuHoursNonResumable", Json.num(g.lostGpuHoursNonResumable()));
        field(b, in, "lostShare", Json.num(g.lostShare()));
        field(b, in, "usefulGpuHours", Json.num(g.usefulGpuHours()));
        field(b, in, "preemptionsAllocated", Integer.toString(g.preemptionsAllocated()));
        field(b, in, "preemptionsUnallocated", Integer.toString(g.preemptionsUnallocated()));
        field(b, in, "preemptionsPer1000GpuHours", Json.num(g.preemptionsPer1000GpuHours()));
        field(b, in, "largeHeadOfLineJobs", Integer.toString(g.largeHeadOfLineJobs()));
        field(b, in, "largeHeadOfLineP90Seconds", Json.num(g.largeHeadOfLineP90Seconds()));
        field(b, in, "largeHeadOfLineMaxSeconds", Json.num(g.largeHeadOfLineMaxSeconds()));
        field(b, in, "largeHeadOfLineAllocatedJobs", Integer.toString(g.largeHeadOfLineAllocatedJobs()));
        field(b, in, "largeHeadOfLineAllocatedP90Seconds", Json.num(g.largeHeadOfLineAllocatedP90Seconds()));
        b.append(in).append("\"preemptionCycles\": ").append(g.cycles());
        if (est != null) {
            b.append(",\n").append(in).append("\"startEstimate\": ");
            startEstimate(b, est, in);
        }
        b.append('\n');
        b.append(indent).append('}');
    }

    /**
     * {@code "startEstimate"}: the headline figures over each job's submission sample, the same over
     * every hourly sample, and the cost ({@code refreshes} forward runs, {@code wallSeconds}).
     */
    static void startEstimate(StringBuilder b, StartEstimates.Accuracy a, String indent) {
        String in = indent + "  ";
        b.append("{\n");
        figures(b, a.atSubmission(), in);
        b.append(",\n").append(in).append("\"hourly\": {");
        StringBuilder h = new StringBuilder();
        figures(h, a.hourly(), "");
        b.append(h.toString().replace("\n", " ").replaceAll(" +", " ").trim()).append("},\n");
        if (a.oracle() != StartEstimates.Oracle.NONE) { // a diagnosis: say what the estimator was told
            b.append(in).append("\"oracle\": ").append(Json.str(a.oracle().name())).append(",\n");
        }
        b.append(in).append("\"refreshes\": ").append(a.refreshes()).append(",\n");
        b.append(in).append("\"wallSeconds\": ").append(Json.num(a.wallSeconds())).append('\n');
        b.append(indent).append('}');
    }

    private static void figures(StringBuilder b, StartEstimates.Figures f, String in) {
        b.append(in).append("\"jobs\": ").append(f.jobs()).append(",\n");
        b.append(in).append("\"medianAbsErrorSeconds\": ").append(Json.num(f.medianAbsErrorSeconds())).append(",\n");
        b.append(in).append("\"p90AbsErrorSeconds\": ").append(Json.num(f.p90AbsErrorSeconds())).append(",\n");
        b.append(in).append("\"withinQuarterShare\": ").append(Json.num(f.withinQuarterShare())).append(",\n");
        b.append(in).append("\"baselineMedianAbsErrorSeconds\": ").append(Json.num(f.baselineMedianAbsErrorSeconds()))
                .append(",\n");
        b.append(in).append("\"baselineP90AbsErrorSeconds\": ").append(Json.num(f.baselineP90AbsErrorSeconds()))
                .append(",\n");
        b.append(in).append("\"baselineWithinQuarterShare\": ").append(Json.num(f.baselineWithinQuarterShare()))
                .append(",\n");
        b.append(in).append("\"medianWaitSeconds\": ").append(Json.num(f.medianWaitSeconds())).append(",\n");
        b.append(in).append("\"medianRelativeError\": ").append(Json.num(f.medianRelativeError())).append(",\n");
        b.append(in).append("\"medianSignedErrorSeconds\": ").append(Json.num(f.medianSignedErrorSeconds()));
    }

    private static void field(StringBuilder b, String indent, String name, String value) {
        b.append(indent).append(Json.str(name)).append(": ").append(value).append(",\n");
    }

    static void waits(StringBuilder b, Map<JobClass, Double> w, double debugAllocated,
            double debugUnallocated) {
        b.append("{\"debug\": ").append(Json.num(w.get(JobClass.DEBUG)))
                .append(", \"small\": ").append(Json.num(w.get(JobClass.SMALL)))
                .append(", \"large\": ").append(Json.num(w.get(JobClass.LARGE)))
                .append(", \"debugAllocated\": ").append(Json.num(debugAllocated))
                .append(", \"debugUnallocated\": ").append(Json.num(debugUnallocated)).append('}');
    }

    /** The run's preemptions per day (or hour, over a short period), as the report's timeline shows them. */
    private static void timeline(StringBuilder b, Losses.Timeline tl) {
        b.append(",\n      \"preemptionTimeline\": {\"bucketSeconds\": ").append(tl.bucketSeconds())
                .append(", \"preemptions\": [");
        for (int i = 0; i < tl.buckets(); i++) {
            b.append(i == 0 ? "" : ", ").append(tl.count()[i]);
        }
        b.append("], \"lostGpuHoursAllocated\": [");
        for (int i = 0; i < tl.buckets(); i++) {
            b.append(i == 0 ? "" : ", ").append(Json.num(tl.lostAllocated()[i]));
        }
        b.append("], \"lostGpuHoursUnallocated\": [");
        for (int i = 0; i < tl.buckets(); i++) {
            b.append(i == 0 ? "" : ", ").append(Json.num(tl.lostUnallocated()[i]));
        }
        b.append("]}");
    }

    /** details.json: per-run extras (runs include the contract-rule variants). */
    public static String details(Scenario sc, List<RunResult> runs, List<Scenario> variantScenarios) {
        StringBuilder b = new StringBuilder();
        b.append("{\n  \"scenario\": ");
        scenario(b, sc);
        b.append(",\n  \"nodes\": ").append(sc.nodes())
                .append(",\n  \"gpusPerNode\": ").append(sc.gpusPerNode())
                .append(",\n  \"traceJobs\": ").append(sc.traceJobs())
                .append(",\n  \"debugJobs\": ").append(sc.debugJobs())
                .append(",\n  \"seed\": ").append(sc.seed())
                .append(",\n  \"lookbackDays\": ").append(Json.num(sc.lookbackSeconds() / 86400.0))
                .append(",\n  \"maxMinRuntimeHours\": ").append(Json.num(sc.maxMinRuntimeSeconds() / 3600.0))
                .append(",\n  \"contractRule\": ").append(Json.str(sc.rule().describe()))
                .append(",\n  \"runs\": [");
        for (int i = 0; i < runs.size(); i++) {
            RunResult r = runs.get(i);
            ClusterMetrics.Result m = r.result();
            b.append(i == 0 ? "\n    {" : ",\n    {");
            b.append("\"policy\": ").append(Json.str(r.policy()))
                    .append(", \"variant\": ").append(Json.str(r.variant()))
                    .append(", \"submitted\": ").append(r.submitted())
                    .append(", \"finished\": ").append(r.finished())
                    .append(", \"runningAtEnd\": ").append(r.runningAtEnd())
                    .append(", \"waitingAtEnd\": ").append(r.waitingAtEnd())
                    .append(", \"rejected\": ").append(r.rejected())
                    .append(", \"passes\": ").append(r.passes())
                    .append(", \"preemptionsOfUnallocated\": ").append(r.preemptionsOfUnallocated())
                    .append(", \"lostGpuHoursOfUnallocated\": ").append(Json.num(r.lostGpuHoursOfUnallocated()))
                    .append(", \"fragmentation\": ").append(Json.num(m.fragmentation()))
                    .append(", \"heldGpuHours\": ").append(Json.num(m.heldGpuHours()))
                    .append(", \"availableGpuHours\": ").append(Json.num(m.availableGpuHours()))
                    .append(", \"worstTeam\": ").append(m.owed().worstTeam() == null ? "null" : Json.str(m.owed().worstTeam()))
                    .append(",\n      \"metrics\": ");
            policy(b, m, "      ");
            timeline(b, Losses.Timeline.of(r.preemptions(), sc.periodSeconds(),
                    Losses.Timeline.bucketFor(sc.periodSeconds())));
            b.append(",\n      \"teams\": [");
            List<OwedHours.Team> teams = m.owed().teams();
            Map<String, Losses.Team> losses = Losses.byTeam(r.preemptions());
            for (int t = 0; t < teams.size(); t++) {
                OwedHours.Team tm = teams.get(t);
                b.append(t == 0 ? "\n        " : ",\n        ");
                b.append("{\"team\": ").append(Json.str(tm.team()))
                        .append(", \"entitledGpuHours\": ").append(Json.num(tm.entitledGpuHours()))
                        .append(", \"demandGpuHours\": ").append(Json.num(tm.demandGpuHours()))
                        .append(", \"owedGpuHours\": ").append(Json.num(tm.owedGpuHours()))
                        .append(", \"deliveredGpuHours\": ").append(Json.num(tm.deliveredGpuHours()))
                        .append(", \"ratio\": ").append(Json.num(tm.ratio()))
                        .append(", \"usefulGpuHours\": ").append(Json.num(m.goodput().owedUseful().teams().get(t)
                                .deliveredGpuHours()))
                        .append(", \"usefulRatio\": ").append(Json.num(m.goodput().owedUseful().teams().get(t).ratio()))
                        .append(", \"lostGpuHours\": ").append(Json.num(m.goodput().lostGpuHours(tm.team())));
                Losses.Team l = losses.getOrDefault(tm.team(), Losses.Team.NONE);
                b.append(", \"preemptions\": ").append(l.preemptions())
                        .append(", \"lostGpuHoursAllocated\": ").append(Json.num(l.allocated()))
                        .append(", \"lostGpuHoursUnallocated\": ").append(Json.num(l.unallocated()))
                        .append(", \"lostGpuHoursResumable\": ").append(Json.num(l.resumable()))
                        .append(", \"lostGpuHoursNonResumable\": ").append(Json.num(l.nonResumable()))
                        .append('}');
            }
            b.append("\n      ]}");
        }
        b.append("\n  ],\n  \"variants\": [");
        for (int i = 0; i < variantScenarios.size(); i++) {
            Scenario v = variantScenarios.get(i);
            b.append(i == 0 ? "\n    " : ",\n    ").append("{\"name\": ").append(Json.str(v.rule().name()))
                    .append(", \"rule\": ").append(Json.str(v.rule().describe()))
                    .append(", \"checkpointOnNotice\": ").append(Json.num(v.checkpointOnNotice())).append('}');
        }
        b.append("\n  ]\n}\n");
        return b.toString();
    }
}
