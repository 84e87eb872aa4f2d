package dev.allot.simulator.report;

import dev.allot.core.metrics.ClusterMetrics;
import dev.allot.core.metrics.JobClass;
import dev.allot.core.metrics.OwedHours;
import dev.allot.simulator.engine.RunResult;
import dev.allot.simulator.scenario.Scenario;
import java.util.List;
import java.util.Locale;

/**
 * A self-contained HTML report (inline SVG, no script, no network): the side-by-side table, GPUs
 * held by team over time with preemptions marked, delivered against owed per team over time,
 * wait distributions per class, and how the budget policy's figures move with the contract rule.
 */
public final class HtmlReport {
    private static final String[] COLORS = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b",
        "#e377c2", "#7f7f7f", "#bcbd22", "#17becf", "#aec7e8", "#ffbb78", "#98df8a", "#ff9896", "#c5b0d5",
        "#c49c94", "#f7b6d2", "#c7c7c7", "#dbdb8d", "#9edae5"};
    private static final int W = 920;
    private static final int H = 280;
    private static final int L = 60;
    private static final int R = 150;
    private static final int T = 20;
    private static final int B = 40;

    private HtmlReport() {
    }

    public static String render(Scenario sc, double wallSeconds, List<RunResult> runs, List<RunResult> variants) {
        StringBuilder b = new StringBuilder(1 << 20);
        b.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Allot simulation report</title>\n")
                .append("<style>body{font-family:system-ui,sans-serif;margin:24px;max-width:1000px;color:#222}")
                .append("table{border-collapse:collapse;margin:8px 0}td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}")
                .append("th:first-child,td:first-child{text-align:left}h2{margin-top:36px;border-bottom:1px solid #ddd}")
                .append(".note{color:#555;font-size:90%}svg{background:#fff;border:1px solid #eee}</style></head><body>\n");
        b.append("<h1>Allot simulation report</h1>\n<p>").append(sc.jobs().size()).append(" jobs (")
                .append(sc.traceJobs()).append(" from the trace, ").append(sc.debugJobs()).append(" synthetic debug jobs), ")
                .append(sc.teams().size()).append(" teams, ").append(sc.nodes()).append(" nodes x ").append(sc.gpusPerNode())
                .append(" GPUs = ").append(sc.clusterGpus()).append(" GPUs, ").append(fmt(sc.days(), 1)).append(" days, offered load ")
                .append(fmt(sc.offeredLoad(), 2)).append("x capacity, seed ").append(sc.seed()).append(", lookback ")
                .append(fmt(sc.lookbackSeconds() / 86400.0, 1)).append(" days, max minimum runtime ")
                .append(fmt(sc.maxMinRuntimeSeconds() / 3600.0, 1)).append(" h. Contract rule: ")
                .append(esc(sc.rule().describe())).append(". Checkpoint on notice: ")
                .append(sc.checkpointOnNotice() > 0 ? pct(sc.checkpointOnNotice()) + " of resumable jobs" : "none")
                .append(". Wall time ").append(fmt(wallSeconds, 1)).append(" s.</p>\n");

        b.append("<h2>Side by side</h2>\n");
        table(b, runs, false);
        b.append("<p class=\"note\">Occupancy: GPU-time held / GPU-time available. Owed: entitlement capped hour by hour at ")
                .append("the team's demand of allocated work (unallocated work is free: owed nothing); delivered = GPU-time held by its allocated jobs; delivered/owed over the period, capped at 1 per team; mean and worst over the teams ")
                .append("owed anything. Waits: submit to first placement (jobs never placed count with their wait so far); ")
                .append("large = 64 GPUs or more. Lost GPU-hours: work since the last checkpoint of preempted jobs ")
                .append("(none for a job that checkpoints on notice). ")
                .append("Fragmentation: GPU-time idle while some job waited / GPU-time available.</p>\n");

        startEstimates(b, runs);

        b.append("<h2>GPUs held by team over time</h2>\n<p class=\"note\">Hourly average GPUs held per team (allocated and unallocated), stacked; ")
                .append("red ticks above the plot mark preemptions.</p>\n");
        for (RunResult r : runs) {
            b.append("<h3>").append(esc(r.policy())).append("</h3>\n");
            gpuByTime(b, sc, r);
        }

        lossSections(b, sc, runs);

        b.append("<h2>Delivered against owed, per team</h2>\n<p class=\"note\">Cumulative delivered / cumulative owed ")
                .append("GPU-hours from the start of the period (clipped to 0..2; dashed lines at 1 and 0.95), then the ")
                .append("period's totals.</p>\n");
        for (RunResult r : runs) {
            b.append("<h3>").append(esc(r.policy())).append("</h3>\n");
            owedOverTime(b, sc, r);
            teamTable(b, r.result());
        }

        b.append("<h2>Wait distributions</h2>\n<p class=\"note\">Share of jobs that waited at most x (log scale).</p>\n");
        for (JobClass c : JobClass.values()) {
            b.append("<h3>").append(c.label()).append("</h3>\n");
            waitCdf(b, runs, c);
        }

        b.append("<h2>Contract rule sensitivity (budget policy)</h2>\n");
        if (variants.isEmpty()) {
            b.append("<p>No variants were run (--variants=false).</p>\n");
        } else {
            b.append("<p class=\"note\">The same trace and cluster, trace jobs' contracts drawn by other rules; ")
                    .append("notice-F: the same contracts, with a share F of resumable jobs checkpointing on notice.</p>\n");
            table(b, variants, true);
        }
        b.append("</body></html>\n");
        return b.toString();
    }

    /** The expected start's accuracy per policy, when the run measured it ({@code --start-estimates}). */
    private static void startEstimates(StringBuilder b, List<RunResult> runs) {
        if (runs.stream().allMatch(r -> r.startEstimate() == null)) {
            return;
        }
        b.append("<h2>Expected start: accuracy</h2>\n<table><tr><th>policy</th><th>samples</th><th>jobs</th>")
                .append("<th>median wait</th><th>median |error|</th><th>p90 |error|</th><th>within 25 %</th>")
                .append("<th>median signed error</th><th>baseline median |error|</th><th>baseline p90 |error|</th>")
                .append("<th>baseline within 25 %</th></tr>\n");
        for (RunResult r : runs) {
            if (r.startEstimate() == null) {
                continue;
            }
            estimateRow(b, r.policy(), "at submission", r.startEstimate().atSubmission());
            estimateRow(b, r.policy(), "hourly", r.startEstimate().hourly());
        }
        b.append("</table>\n<p class=\"note\">Jobs that waited more than 10 minutes. The estimate: the scheduling core run ")
                .append("forward on a copy of the live state (run times learned from finished jobs, no arrivals), at ")
                .append("submission and every hour while the job waits (refreshed at most every 5 simulated minutes); ")
                .append("error = |estimated - actual start|; within 25 %: actual wait within 25 % of the estimated ")
                .append("wait. Baseline (Slurm-style): the same forward run without preemption, every job ending at ")
                .append("the trace's longest run. Jobs not started within the run are left out.</p>\n");
        b.append("<p class=\"note\">Each dot a job: the wait estimated at its submission against the wait it had ")
                .append("(log scales, 10 min to 30 days; beyond the range at the edge). On the solid line the estimate ")
                .append("was exact; between the dashed lines the actual wait was within 25 % of it; above, the job ")
                .append("started later than estimated. Every sample is in start-estimates-POLICY.csv.</p>\n");
        EstimateChart.render(b, runs);
    }

    private static void estimateRow(StringBuilder b, String policy, String samples,
            dev.allot.simulator.engine.StartEstimates.Figures f) {
        b.append("<tr><td>").append(esc(policy)).append("</td><td>").append(samples).append("</td><td>").append(f.jobs())
                .append("</td><td>").append(secs(f.medianWaitSeconds())).append("</td><td>")
                .append(secs(f.medianAbsErrorSeconds())).append("</td><td>").append(secs(f.p90AbsErrorSeconds()))
                .append("</td><td>").append(pct(f.withinQuarterShare())).append("</td><td>")
                .append(f.medianSignedErrorSeconds() < 0 ? "-" : "").append(secs(Math.abs(f.medianSignedErrorSeconds())))
                .append("</td><td>").append(secs(f.baselineMedianAbsErrorSeconds())).append("</td><td>")
                .append(secs(f.baselineP90AbsErrorSeconds())).append("</td><td>").append(pct(f.baselineWithinQuarterShare()))
                .append("</td></tr>\n");
    }

    private static void lossSections(StringBuilder b, Scenario sc, List<RunResult> runs) {
        List<String> quiet = runs.stream().filter(r -> r.preemptions().isEmpty()).map(RunResult::policy).toList();
        String none = quiet.isEmpty() ? "" : " No preemptions under " + esc(String.join(", ", quiet)) + ".";
        b.append("<h2>GPU-hours lost per team</h2>\n<p class=\"note\">GPU-hours the victims of each team lost to ")
                .append("preemption (work since their last checkpoint; the whole run when not resumable), by the ")
                .append("victim's charge mode and whether it was resumable; hover a bar for its figures.")
                .append(none).append("</p>\n");
        for (RunResult r : runs) {
            if (!r.preemptions().isEmpty()) {
                b.append("<h3>").append(esc(r.policy())).append("</h3>\n");
                LossCharts.lostByTeam(b, r.metrics().teams(), r);
            }
        }
        b.append("<h2>Preemptions over time</h2>\n<p class=\"note\">Per ")
                .append(Losses.Timeline.bucketFor(sc.periodSeconds()) == 86400 ? "day" : "hour")
                .append(" of the measured period: GPU-hours lost (bars, left axis, by the victim's charge mode) and ")
                .append("the number of preemptions (line, right axis).").append(none).append("</p>\n");
        for (RunResult r : runs) {
            if (!r.preemptions().isEmpty()) {
                b.append("<h3>").append(esc(r.policy())).append("</h3>\n");
                LossCharts.timeline(b, sc.periodSeconds(), r);
            }
        }
    }

    private static void table(StringBuilder b, List<RunResult> runs, boolean byVariant) {
        b.append("<table><tr><th>").append(byVariant ? "rule" : "metric").append("</th>");
        for (RunResult r : runs) {
            b.append("<th>").append(esc(byVariant ? r.variant() : r.policy())).append("</th>");
        }
        b.append("</tr>\n");
        row(b, "occupancy", runs, r -> pct(r.occupancy()));
        row(b, "owed delivered, mean", runs, r -> pct(r.owed().mean()));
        row(b, "owed delivered, worst team", runs, r -> pct(r.owed().min()) + " (" + esc(String.valueOf(r.owed().worstTeam())) + ")");
        row(b, "teams at 95% or more", runs, r -> r.owed().teamsAtLeast95() + " / " + r.owed().teamsOwed());
        row(b, "unallocated share", runs, r -> pct(r.unallocatedShare()));
        for (JobClass c : JobClass.values()) {
            row(b, "jobs " + c.label(), runs, r -> Integer.toString(r.jobsPerClass().get(c)));
            row(b, "wait p50 " + c.label(), runs,
                    r -> r.jobsPerClass().get(c) == 0 ? "n/a" : secs(r.waitP50Seconds().get(c)));
            row(b, "wait p90 " + c.label(), runs,
                    r -> r.jobsPerClass().get(c) == 0 ? "n/a" : secs(r.waitP90Seconds().get(c)));
        }
        row(b, "preemptions", runs, r -> Integer.toString(r.preemptions()));
        b.append("<tr><td>of which unallocated victims</td>");
        for (RunResult r : runs) {
            b.append("<td>").append(r.preemptionsOfUnallocated()).append("</td>");
        }
        b.append("</tr>\n");
        row(b, "GPU-hours lost", runs, r -> fmt(r.lostGpuHours(), 1));
        row(b, "lost share of GPU-time", runs, r -> pct(r.goodput().lostShare()));
        row(b, "lost: allocated / unallocated", runs, r -> fmt(r.goodput().lostGpuHoursAllocated(), 1) + " / "
                + fmt(r.goodput().lostGpuHoursUnallocated(), 1));
        row(b, "lost: resumable / non-resumable", runs, r -> fmt(r.goodput().lostGpuHoursResumable(), 1) + " / "
                + fmt(r.goodput().lostGpuHoursNonResumable(), 1));
        row(b, "useful GPU-hours", runs, r -> fmt(r.goodput().usefulGpuHours(), 0));
        row(b, "useful owed hours, mean", runs, r -> pct(r.goodput().owedUseful().mean()));
        row(b, "useful owed hours, worst team", runs, r -> pct(r.goodput().owedUseful().min()) + " ("
                + esc(String.valueOf(r.goodput().owedUseful().worstTeam())) + ")");
        row(b, "preemptions: allocated / unallocated", runs, r -> r.goodput().preemptionsAllocated() + " / "
                + r.goodput().preemptionsUnallocated());
        row(b, "preemptions per 1,000 GPU-hours", runs, r -> fmt(r.goodput().preemptionsPer1000GpuHours(), 2));
        row(b, "preemption cycles (1 h)", runs, r -> Integer.toString(r.goodput().cycles()));
        row(b, "debug wait p90: allocated / unallocated", runs, r -> secs(r.goodput().debugAllocatedP90Seconds())
                + " / " + secs(r.goodput().debugUnallocatedP90Seconds()));
        row(b, "large head of line p90 / max (jobs)", runs, r -> r.goodput().largeHeadOfLineJobs() == 0 ? "n/a"
                : secs(r.goodput().largeHeadOfLineP90Seconds()) + " / " + secs(r.goodput().largeHeadOfLineMaxSeconds())
                        + " (" + r.goodput().largeHeadOfLineJobs() + ")");
        row(b, "large head of line p90, allocated jobs only (jobs)", runs, r -> r.goodput().largeHeadOfLineAllocatedJobs() == 0
                ? "n/a" : secs(r.goodput().largeHeadOfLineAllocatedP90Seconds()) + " (" + r.goodput().largeHeadOfLineAllocatedJobs() + ")");
        row(b, "fragmentation", runs, r -> pct(r.fragmentation()));
        b.append("<tr><td>jobs finished / running / waiting / rejected</td>");
        for (RunResult r : runs) {
            b.append("<td>").append(r.finished()).append(" / ").append(r.runningAtEnd()).append(" / ")
                    .append(r.waitingAtEnd()).append(" / ").append(r.rejected()).append("</td>");
        }
        b.append("</tr>\n<tr><td>passes, run seconds</td>");
        for (RunResult r : runs) {
            b.append("<td>").append(r.passes()).append(", ").append(fmt(r.wallMillis() / 1000.0, 1)).append("</td>");
        }
        b.append("</tr></table>\n");
    }

    private interface Cell {
        String of(ClusterMetrics.Result r);
    }

    private static void row(StringBuilder b, String name, List<RunResult> runs, Cell cell) {
        b.append("<tr><td>").append(name).append("</td>");
        for (RunResult r : runs) {
            b.append("<td>").append(cell.of(r.result())).append("</td>");
        }
        b.append("</tr>\n");
    }

    private static void teamTable(StringBuilder b, ClusterMetrics.Result r) {
        b.append("<table><tr><th>team</th><th>entitled GPU-h</th><th>demand GPU-h</th><th>owed GPU-h</th>")
                .append("<th>delivered GPU-h</th><th>delivered/owed</th><th>useful GPU-h</th><th>useful/owed</th>")
                .append("<th>lost GPU-h</th></tr>\n");
        List<OwedHours.Team> useful = r.goodput().owedUseful().teams();
        for (int i = 0; i < r.owed().teams().size(); i++) {
            OwedHours.Team t = r.owed().teams().get(i);
            OwedHours.Team u = useful.get(i);
            b.append("<tr><td>").append(esc(t.team())).append("</td><td>").append(fmt(t.entitledGpuHours(), 0))
                    .append("</td><td>").append(fmt(t.demandGpuHours(), 0)).append("</td><td>")
                    .append(fmt(t.owedGpuHours(), 0)).append("</td><td>").append(fmt(t.deliveredGpuHours(), 0))
                    .append("</td><td>").append(t.owedAnything() ? pct(t.ratio()) : "owed nothing")
                    .append("</td><td>").append(fmt(u.deliveredGpuHours(), 0))
                    .append("</td><td>").append(u.owedAnything() ? pct(u.ratio()) : "owed nothing")
                    .append("</td><td>").append(fmt(r.goodput().lostGpuHours(t.team()), 1)).append("</td></tr>\n");
        }
        b.append("</table>\n");
    }

    private static void gpuByTime(StringBuilder b, Scenario sc, RunResult run) {
        ClusterMetrics m = run.metrics();
        List<String> teams = m.teams();
        int hours = m.heldPerHour().length;
        double[] base = new double[hours];
        double xMax = hours;
        double yMax = sc.clusterGpus();
        svgOpen(b);
        axes(b, 0, xMax / 24.0, "days", 0, yMax, "GPUs");
        for (int ti = 0; ti < teams.size(); ti++) {
            double[] d = m.delivered(teams.get(ti));
            double[] u = m.unallocated(teams.get(ti));
            for (int h = 0; h < hours; h++) {
                d[h] += u[h];
            }
            StringBuilder top = new StringBuilder();
            StringBuilder bottom = new StringBuilder();
            for (int h = 0; h < hours; h++) {
                double lo = base[h];
                double hi = lo + d[h] / 3600.0;
                base[h] = hi;
                top.append(x(h, xMax)).append(',').append(y(hi, yMax)).append(' ')
                        .append(x(h + 1, xMax)).append(',').append(y(hi, yMax)).append(' ');
                bottom.insert(0, x(h + 1, xMax) + "," + y(lo, yMax) + " " + x(h, xMax) + "," + y(lo, yMax) + " ");
            }
            b.append("<polygon fill=\"").append(color(ti)).append("\" stroke=\"none\" points=\"").append(top)
                    .append(bottom).append("\"><title>").append(esc(teams.get(ti))).append("</title></polygon>\n");
        }
        double[] pt = run.preemptionTimes();
        StringBuilder ticks = new StringBuilder();
        for (double t : pt) {
            String px = x(t / 3600.0, xMax);
            ticks.append('M').append(px).append(' ').append(T - 12).append("v9");
        }
        if (ticks.length() > 0) {
            b.append("<path stroke=\"#d00\" stroke-width=\"1\" d=\"").append(ticks).append("\"/>\n");
        }
        legend(b, teams);
        b.append("</svg>\n");
    }

    private static void owedOverTime(StringBuilder b, Scenario sc, RunResult run) {
        ClusterMetrics m = run.metrics();
        List<String> teams = m.teams();
        int hours = m.heldPerHour().length;
        double xMax = hours;
        double yMax = 2.0;
        svgOpen(b);
        axes(b, 0, xMax / 24.0, "days", 0, yMax, "delivered / owed");
        for (double ref : new double[] {1.0, 0.95}) {
            b.append("<line x1=\"").append(L).append("\" x2=\"").append(W - R).append("\" y1=\"").append(y(ref, yMax))
                    .append("\" y2=\"").append(y(ref, yMax)).append("\" stroke=\"#999\" stroke-dasharray=\"4 3\"/>\n");
        }
        for (int ti = 0; ti < teams.size(); ti++) {
            String team = teams.get(ti);
            double[] owed = OwedHours.owed(m.entitlement(team), m.demand(team));
            double[] del = m.delivered(team);
            double co = 0;
            double cd = 0;
            StringBuilder pts = new StringBuilder();
            for (int h = 0; h < hours; h++) {
                co += owed[h];
                cd += del[h];
                if (co > 0) {
                    double v = Math.min(yMax, cd / co);
                    pts.append(x(h + 1, xMax)).append(',').append(y(v, yMax)).append(' ');
                }
            }
            if (pts.length() > 0) {
                b.append("<polyline fill=\"none\" stroke-width=\"1.5\" stroke=\"").append(color(ti)).append("\" points=\"")
                        .append(pts).append("\"><title>").append(esc(team)).append("</title></polyline>\n");
            }
        }
        legend(b, teams);
        b.append("</svg>\n");
    }

    private static void waitCdf(StringBuilder b, List<RunResult> runs, JobClass c) {
        double lo = 0;
        double hi = Math.log10(86400.0 * 30);
        svgOpen(b);
        // log axis: 1 s .. 30 d
        b.append("<line x1=\"").append(L).append("\" y1=\"").append(H - B).append("\" x2=\"").append(W - R)
                .append("\" y2=\"").append(H - B).append("\" stroke=\"#333\"/>\n");
        String[] labels = {"1s", "10s", "1m40", "16m", "2.8h", "28h", "11.6d"};
        for (int k = 0; k <= 6; k++) {
            double px = L + (k - lo) / (hi - lo) * (W - L - R);
            b.append("<text x=\"").append(fmt(px, 1)).append("\" y=\"").append(H - B + 15)
                    .append("\" font-size=\"11\" text-anchor=\"middle\">").append(labels[k]).append("</text>\n");
        }
        for (int k = 0; k <= 4; k++) {
            double v = k / 4.0;
            b.append("<text x=\"").append(L - 6).append("\" y=\"").append(fmt(y(v, 1) + 4, 1))
                    .append("\" font-size=\"11\" text-anchor=\"end\">").append(fmt(v * 100, 0)).append("%</text>\n");
            b.append("<line x1=\"").append(L).append("\" x2=\"").append(W - R).append("\" y1=\"").append(y(v, 1))
                    .append("\" y2=\"").append(y(v, 1)).append("\" stroke=\"#eee\"/>\n");
        }
        for (int i = 0; i < runs.size(); i++) {
            double[] w = runs.get(i).metrics().waits().sortedWaits(c);
            if (w.length == 0) {
                continue;
            }
            StringBuilder pts = new StringBuilder();
            int steps = Math.min(w.length, 300);
            for (int s = 0; s < steps; s++) {
                int idx = (int) ((long) s * (w.length - 1) / Math.max(1, steps - 1));
                double xv = Math.log10(Math.max(1.0, w[idx]));
                double px = L + Math.min(1, (xv - lo) / (hi - lo)) * (W - L - R);
                pts.append(fmt(px, 1)).append(',').append(y((idx + 1.0) / w.length, 1)).append(' ');
            }
            b.append("<polyline fill=\"none\" stroke-width=\"2\" stroke=\"").append(color(i)).append("\" points=\"")
                    .append(pts).append("\"/>\n");
        }
        List<String> names = runs.stream().map(RunResult::policy).toList();
        legend(b, names);
        b.append("</svg>\n");
    }

    private static void svgOpen(StringBuilder b) {
        b.append("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"").append(W).append("\" height=\"").append(H)
                .append("\" viewBox=\"0 0 ").append(W).append(' ').append(H).append("\">\n");
    }

    private static void axes(StringBuilder b, double x0, double x1, String xl, double y0, double y1, String yl) {
        b.append("<line x1=\"").append(L).append("\" y1=\"").append(H - B).append("\" x2=\"").append(W - R)
                .append("\" y2=\"").append(H - B).append("\" stroke=\"#333\"/>\n");
        b.append("<line x1=\"").append(L).append("\" y1=\"").append(T).append("\" x2=\"").append(L)
                .append("\" y2=\"").append(H - B).append("\" stroke=\"#333\"/>\n");
        for (int k = 0; k <= 5; k++) {
            double xv = x0 + (x1 - x0) * k / 5;
            double px = L + (double) k / 5 * (W - L - R);
            b.append("<text x=\"").append(fmt(px, 1)).append("\" y=\"").append(H - B + 15)
                    .append("\" font-size=\"11\" text-anchor=\"middle\">").append(fmt(xv, 1)).append("</text>\n");
            double yv = y0 + (y1 - y0) * k / 5;
            double py = H - B - (double) k / 5 * (H - T - B);
            b.append("<text x=\"").append(L - 6).append("\" y=\"").append(fmt(py + 4, 1))
                    .append("\" font-size=\"11\" text-anchor=\"end\">").append(fmt(yv, y1 <= 5 ? 1 : 0)).append("</text>\n");
        }
        b.append("<text x=\"").append((W - R + L) / 2).append("\" y=\"").append(H - 6)
                .append("\" font-size=\"12\" text-anchor=\"middle\">").append(esc(xl)).append("</text>\n");
        b.append("<text x=\"14\" y=\"").append((H - B + T) / 2).append("\" font-size=\"12\" text-anchor=\"middle\" ")
                .append("transform=\"rotate(-90 14 ").append((H - B + T) / 2).append(")\">").append(esc(yl))
                .append("</text>\n");
    }

    private static void legend(StringBuilder b, List<String> names) {
        int rowH = Math.max(9, Math.min(16, (H - T - 10) / Math.max(1, names.size())));
        for (int i = 0; i < names.size(); i++) {
            int py = T + i * rowH;
            b.append("<rect x=\"").append(W - R + 10).append("\" y=\"").append(py).append("\" width=\"10\" height=\"")
                    .append(rowH - 3).append("\" fill=\"").append(color(i)).append("\"/><text x=\"").append(W - R + 25)
                    .append("\" y=\"").append(py + rowH - 4).append("\" font-size=\"").append(Math.min(11, rowH - 1))
                    .append("\">").append(esc(names.get(i))).append("</text>\n");
        }
    }

    private static String x(double v, double max) {
        return fmt(L + v / max * (W - L - R), 1);
    }

    private static double y(double v, double max) {
        return Math.round((H - B - v / max * (H - T - B)) * 10) / 10.0;
    }

    static String color(int i) {
        return COLORS[i % COLORS.length];
    }

    static String pct(double f) {
        return fmt(f * 100, 1) + "%";
    }

    static String secs(double s) {
        if (s < 120) {
            return fmt(s, 0) + " s";
        }
        if (s < 7200) {
            return fmt(s / 60, 1) + " min";
        }
        return fmt(s / 3600, 1) + " h";
    }

    static String fmt(double v, int decimals) {
        return String.format(Locale.ROOT, "%." + decimals + "f", v);
    }

    static String esc(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
