package dev.allot.simulator.whatif;

import dev.allot.core.metrics.JobClass;
import dev.allot.simulator.scenario.BudgetFile;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;

/**
 * What {@code allot whatif} shows: per team, each figure as "before → after", in a table as wide as the terminal
 * allows (one line per team; a block per team when that does not fit), or as JSON.
 */
final class WhatIfView {

    private final WhatIf.Outcome outcome;
    private final String cluster;
    private final Instant from;
    private final Instant to;
    private final ShareChanges changes;
    private final int skipped;

    WhatIfView(WhatIf.Outcome outcome, String cluster, Instant from, Instant to, ShareChanges changes, int skipped) {
        this.outcome = outcome;
        this.cluster = cluster;
        this.from = from;
        this.to = to;
        this.changes = changes;
        this.skipped = skipped;
    }

    List<String> teams() {
        TreeSet<String> t = new TreeSet<>(outcome.before().teams().keySet());
        t.addAll(outcome.after().teams().keySet());
        return List.copyOf(t);
    }

    /** The job classes that have jobs (the same in both runs: one trace). */
    List<JobClass> classes() {
        List<JobClass> cs = new ArrayList<>();
        for (JobClass c : JobClass.values()) {
            boolean any = outcome.before().teams().values().stream().anyMatch(f -> f.jobs().getOrDefault(c, 0) > 0);
            if (any) {
                cs.add(c);
            }
        }
        return cs;
    }

    private double fraction(WhatIf.Run run, String team) {
        return run.scenario().fractions().getOrDefault(team, 0.0);
    }

    /** Column label, then per team the before and after cells. */
    private record Column(String label, List<String[]> cells) {
    }

    private List<Column> columns(List<String> teams) {
        WhatIf.Run b = outcome.before();
        WhatIf.Run a = outcome.after();
        List<Column> cols = new ArrayList<>();
        cols.add(col("share", teams, t -> pct(fraction(b, t)), t -> pct(fraction(a, t))));
        cols.add(col("owed GPU-h", teams, t -> hours(fig(b, t).owedGpuHours()), t -> hours(fig(a, t).owedGpuHours())));
        cols.add(col("delivered GPU-h", teams, t -> hours(fig(b, t).deliveredGpuHours()),
                t -> hours(fig(a, t).deliveredGpuHours())));
        cols.add(col("useful GPU-h", teams, t -> hours(fig(b, t).usefulGpuHours()), t -> hours(fig(a, t).usefulGpuHours())));
        for (JobClass c : classes()) {
            cols.add(col(c.label() + " wait p50", teams, t -> wait(fig(b, t), c, true), t -> wait(fig(a, t), c, true)));
            cols.add(col(c.label() + " wait p90", teams, t -> wait(fig(b, t), c, false), t -> wait(fig(a, t), c, false)));
        }
        cols.add(col("preemptions", teams, t -> String.valueOf(fig(b, t).preemptions()),
                t -> String.valueOf(fig(a, t).preemptions())));
        cols.add(col("completed", teams, t -> String.valueOf(fig(b, t).completed()),
                t -> String.valueOf(fig(a, t).completed())));
        return cols;
    }

    private static Column col(String label, List<String> teams, java.util.function.Function<String, String> before,
            java.util.function.Function<String, String> after) {
        List<String[]> cells = new ArrayList<>();
        for (String t : teams) {
            cells.add(new String[] {before.apply(t), after.apply(t)});
        }
        return new Column(label, cells);
    }

    private static WhatIf.TeamFigures fig(WhatIf.Run run, String team) {
        WhatIf.TeamFigures f = run.teams().get(team);
        return f != null ? f : new WhatIf.TeamFigures(0, 0, 0, Map.of(), Map.of(), Map.of(), 0, 0);
    }

    private static String wait(WhatIf.TeamFigures f, JobClass c, boolean p50) {
        if (f.jobs().getOrDefault(c, 0) == 0) {
            return "-";
        }
        return duration((p50 ? f.waitP50Seconds() : f.waitP90Seconds()).getOrDefault(c, 0.0));
    }

    String table(int width) {
        StringBuilder s = new StringBuilder();
        header(s);
        List<String> teams = teams();
        if (teams.isEmpty()) {
            s.append("no job of cluster ").append(cluster).append(" in the window: nothing to compare\n");
            return s.toString();
        }
        List<Column> cols = columns(teams);
        int teamWidth = Math.max(4, teams.stream().mapToInt(String::length).max().orElse(4));
        // a cell is "before → after", the arrow only where the figure changed
        List<Integer> widths = new ArrayList<>();
        int total = teamWidth;
        for (Column c : cols) {
            int w = c.label().length();
            for (String[] cell : c.cells()) {
                w = Math.max(w, cell(cell).length());
            }
            widths.add(w);
            total += 2 + w;
        }
        if (total <= width) {
            s.append(pad("team", teamWidth));
            for (int i = 0; i < cols.size(); i++) {
                s.append("  ").append(lpad(cols.get(i).label(), widths.get(i)));
            }
            s.append('\n');
            for (int r = 0; r < teams.size(); r++) {
                s.append(pad(teams.get(r), teamWidth));
                for (int i = 0; i < cols.size(); i++) {
                    s.append("  ").append(lpad(cell(cols.get(i).cells().get(r)), widths.get(i)));
                }
                s.append('\n');
            }
        } else {
            // too narrow for one line per team: one block per team, a line per figure
            int labelWidth = cols.stream().mapToInt(c -> c.label().length()).max().orElse(8);
            for (int r = 0; r < teams.size(); r++) {
                s.append(teams.get(r)).append('\n');
                for (Column c : cols) {
                    s.append("  ").append(pad(c.label(), labelWidth)).append("  ").append(cell(c.cells().get(r)))
                            .append('\n');
                }
            }
        }
        s.append(recordedLine());
        return s.toString();
    }

    private static String cell(String[] c) {
        return c[0].equals(c[1]) ? c[0] : c[0] + " → " + c[1];
    }

    private void header(StringBuilder s) {
        LogTrace.Trace tr = outcome.trace();
        LogTrace.Notes n = tr.notes();
        s.append(String.format(Locale.ROOT, "whatif: cluster %s, %s to %s (%s days), %d node%s x %d GPUs, %d jobs%n",
                cluster, from, to, trim(outcome.before().scenario().days()), tr.nodes(), tr.nodes() == 1 ? "" : "s",
                tr.gpusPerNode(), tr.jobs().size()));
        // how each duration was chosen, and what was left out (only what occurred)
        List<String> how = new ArrayList<>();
        count(how, n.ended, "ended as observed");
        count(how, n.runningSoFar, "running at the end: run so far");
        count(how, n.runningDeclared, "running at the end: declared duration");
        count(how, n.waitingDeclared, "waiting at the end: declared duration");
        count(how, n.waitingTeamMedian, "waiting: team median");
        count(how, n.waitingAllMedian, "waiting: median of all teams");
        count(how, n.waitingFallback, "waiting: minimum runtime or 1 h");
        count(how, n.carriedIn, "entered from before the window");
        count(how, n.rejected, "rejected, left out");
        count(how, n.endedUnplaced, "cancelled before running, left out");
        count(how, skipped, "undecodable records, left out");
        if (!how.isEmpty()) {
            s.append("  jobs: ").append(String.join("; ", how)).append('\n');
        }
        if (n.heterogeneousNodes) {
            s.append("  note: the nodes differ in GPU count; replayed as ").append(tr.nodes()).append(" x ")
                    .append(tr.gpusPerNode()).append('\n');
        }
        s.append("  before: the tree as recorded, policy ").append(outcome.before().policy()).append("; after: ");
        if (changes.isEmpty()) {
            s.append("the same tree");
        } else {
            List<String> parts = new ArrayList<>();
            BudgetFile tree = tr.budgets();
            changes.shares().forEach((acct, share) -> {
                double old = tree.entries().stream().filter(e -> e.account().equals(acct)).findFirst().orElseThrow().share();
                parts.add(acct + " " + trim(old) + " → " + trim(share));
            });
            s.append(String.join(", ", parts));
        }
        s.append(", policy ").append(outcome.after().policy()).append('\n');
    }

    private static void count(List<String> parts, int n, String what) {
        if (n > 0) {
            parts.add(n + " " + what);
        }
    }

    private String recordedLine() {
        List<String> parts = new ArrayList<>();
        outcome.trace().recorded().forEach((team, r) -> parts.add(team + " " + hours(r.deliveredGpuSeconds / 3600.0)
                + " GPU-h, " + r.completed + " completed"));
        return parts.isEmpty() ? "" : "recorded: " + String.join("; ", parts) + "\n";
    }

    Map<String, Object> json() {
        LogTrace.Trace tr = outcome.trace();
        LogTrace.Notes n = tr.notes();
        Map<String, Object> m = new LinkedHashMap<>();
        Map<String, Object> window = new LinkedHashMap<>();
        window.put("cluster", cluster);
        window.put("from", from.toString());
        window.put("to", to.toString());
        window.put("days", outcome.before().scenario().days());
        window.put("nodes", tr.nodes());
        window.put("gpusPerNode", tr.gpusPerNode());
        m.put("window", window);
        Map<String, Object> trace = new LinkedHashMap<>();
        trace.put("jobs", tr.jobs().size());
        trace.put("ended", n.ended);
        trace.put("runningSoFar", n.runningSoFar);
        trace.put("runningDeclared", n.runningDeclared);
        trace.put("waitingDeclared", n.waitingDeclared);
        trace.put("waitingTeamMedian", n.waitingTeamMedian);
        trace.put("waitingOverallMedian", n.waitingAllMedian);
        trace.put("waitingFallback", n.waitingFallback);
        trace.put("carriedIn", n.carriedIn);
        trace.put("rejected", n.rejected);
        trace.put("cancelledBeforeRunning", n.endedUnplaced);
        trace.put("undecodableRecords", skipped);
        m.put("trace", trace);
        m.put("changes", changes.shares());
        m.put("policy", Map.of("before", outcome.before().policy(), "after", outcome.after().policy()));
        List<Object> teams = new ArrayList<>();
        for (String t : teams()) {
            Map<String, Object> team = new LinkedHashMap<>();
            team.put("team", t);
            LogTrace.TeamRecord r = tr.recorded().get(t);
            Map<String, Object> rec = new LinkedHashMap<>();
            rec.put("deliveredGpuHours", r == null ? 0 : r.deliveredGpuSeconds / 3600.0);
            rec.put("unallocatedGpuHours", r == null ? 0 : r.unallocatedGpuSeconds / 3600.0);
            rec.put("completed", r == null ? 0 : r.completed);
            team.put("recorded", rec);
            team.put("before", figures(outcome.before(), t));
            team.put("after", figures(outcome.after(), t));
            teams.add(team);
        }
        m.put("teams", teams);
        return m;
    }

    private Map<String, Object> figures(WhatIf.Run run, String team) {
        WhatIf.TeamFigures f = fig(run, team);
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("fraction", fraction(run, team));
        m.put("owedGpuHours", f.owedGpuHours());
        m.put("deliveredGpuHours", f.deliveredGpuHours());
        m.put("usefulGpuHours", f.usefulGpuHours());
        Map<String, Object> p50 = new LinkedHashMap<>();
        Map<String, Object> p90 = new LinkedHashMap<>();
        Map<String, Object> jobs = new LinkedHashMap<>();
        for (JobClass c : JobClass.values()) {
            p50.put(c.label(), f.waitP50Seconds().getOrDefault(c, 0.0));
            p90.put(c.label(), f.waitP90Seconds().getOrDefault(c, 0.0));
            jobs.put(c.label(), f.jobs().getOrDefault(c, 0));
        }
        m.put("waitP50Seconds", p50);
        m.put("waitP90Seconds", p90);
        m.put("jobs", jobs);
        m.put("preemptions", f.preemptions());
        m.put("completed", f.completed());
        return m;
    }

    static String hours(double h) {
        if (h == 0) {
            return "0";
        }
        double a = Math.abs(h);
        if (a >= 100) {
            return String.format(Locale.ROOT, "%.0f", h);
        }
        if (a >= 10) {
            return String.format(Locale.ROOT, "%.1f", h);
        }
        if (a >= 1) {
            return String.format(Locale.ROOT, "%.2f", h);
        }
        return String.format(Locale.ROOT, "%.3g", h);
    }

    static String duration(double s) {
        if (s < 60) {
            return String.format(Locale.ROOT, "%.0fs", s);
        }
        if (s < 3600) {
            return String.format(Locale.ROOT, "%.1fm", s / 60);
        }
        if (s < 2 * 86400) {
            return String.format(Locale.ROOT, "%.1fh", s / 3600);
        }
        return String.format(Locale.ROOT, "%.1fd", s / 86400);
    }

    private static String pct(double f) {
        return String.format(Locale.ROOT, "%.1f%%", f * 100);
    }

    private static String trim(double v) {
        return v == Math.rint(v) && Math.abs(v) < 1e15 ? String.valueOf((long) v) : String.format(Locale.ROOT, "%.4g", v);
    }

    private static String pad(String s, int w) {
        return s.length() >= w ? s : s + " ".repeat(w - s.length());
    }

    private static String lpad(String s, int w) {
        return s.length() >= w ? s : " ".repeat(w - s.length()) + s;
    }
}
