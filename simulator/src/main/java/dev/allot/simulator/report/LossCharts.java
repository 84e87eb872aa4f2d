package dev.allot.simulator.report;

import static dev.allot.simulator.report.HtmlReport.esc;
import static dev.allot.simulator.report.HtmlReport.fmt;

import dev.allot.simulator.engine.RunResult;
import java.util.List;
import java.util.Map;

/**
 * The report's two charts of what preemption cost: GPU-hours lost per victim team (one stacked bar
 * per team: allocated or not, resumable or not) and preemptions over time (GPU-hours lost per day
 * or hour as bars, the number of preemptions as a line on the right-hand axis). Inline SVG; every
 * bar carries a {@code <title>} with its figures, so the numbers are readable without a script.
 */
final class LossCharts {
    private static final int W = 920;
    private static final int L = 60;
    private static final int R = 170;
    private static final int T = 20;
    /** Victim classes, bottom to top, with their colours. */
    private static final String[] SEGMENTS = {"allocated, non-resumable", "allocated, resumable",
        "unallocated, resumable", "unallocated, non-resumable"};
    private static final String[] SEGMENT_COLORS = {"#b2182b", "#ef8a62", "#67a9cf", "#2166ac"};
    private static final String COUNT_COLOR = "#333";

    private LossCharts() {
    }

    /** One bar per team of {@code teams} (a team never preempted has an empty bar). */
    static void lostByTeam(StringBuilder b, List<String> teams, RunResult run) {
        int h = 300;
        int bottom = 70;
        Map<String, Losses.Team> by = Losses.byTeam(run.preemptions());
        double max = 0;
        for (String t : teams) {
            max = Math.max(max, by.getOrDefault(t, Losses.Team.NONE).total());
        }
        double yMax = niceCeil(max);
        open(b, h, "lost-by-team");
        yAxis(b, h, bottom, yMax, "GPU-hours lost", L, "end", -6);
        double slot = (double) (W - L - R) / Math.max(1, teams.size());
        double bw = Math.max(1, slot * 0.75);
        for (int i = 0; i < teams.size(); i++) {
            String team = teams.get(i);
            Losses.Team l = by.getOrDefault(team, Losses.Team.NONE);
            double x0 = L + i * slot + (slot - bw) / 2;
            b.append("<g class=\"team-bar\" data-team=\"").append(esc(team)).append("\"><title>").append(esc(team))
                    .append(": ").append(fmt(l.total(), 1)).append(" GPU-h lost in ").append(l.preemptions())
                    .append(" preemptions; allocated ").append(fmt(l.allocated(), 1)).append(" (resumable ")
                    .append(fmt(l.allocatedResumable(), 1)).append("), unallocated ").append(fmt(l.unallocated(), 1))
                    .append("; resumable ").append(fmt(l.resumable(), 1)).append(", non-resumable ")
                    .append(fmt(l.nonResumable(), 1)).append("</title>");
            double[] parts = {l.allocatedNonResumable(), l.allocatedResumable(), l.unallocatedResumable(),
                l.unallocatedNonResumable()};
            double base = 0;
            for (int s = 0; s < parts.length; s++) {
                if (parts[s] <= 0) {
                    continue;
                }
                rect(b, x0, y(base + parts[s], yMax, h, bottom), bw,
                        y(base, yMax, h, bottom) - y(base + parts[s], yMax, h, bottom), SEGMENT_COLORS[s]);
                base += parts[s];
            }
            b.append("</g>\n");
            double cx = x0 + bw / 2;
            double cy = h - bottom + 8;
            b.append("<text x=\"").append(fmt(cx, 1)).append("\" y=\"").append(fmt(cy, 1))
                    .append("\" font-size=\"").append(teams.size() > 40 ? 8 : 10).append("\" text-anchor=\"end\" ")
                    .append("transform=\"rotate(-60 ").append(fmt(cx, 1)).append(' ').append(fmt(cy, 1)).append(")\">")
                    .append(esc(team)).append("</text>\n");
        }
        legend(b, W - R + 10, SEGMENTS, SEGMENT_COLORS, null);
        b.append("</svg>\n");
    }

    /** GPU-hours lost per bucket (stacked by the victim's charge mode) and preemptions per bucket. */
    static void timeline(StringBuilder b, long periodSeconds, RunResult run) {
        int h = 280;
        int bottom = 40;
        Losses.Timeline tl = Losses.Timeline.of(run.preemptions(), periodSeconds,
                Losses.Timeline.bucketFor(periodSeconds));
        int n = tl.buckets();
        boolean daily = tl.bucketSeconds() == 86400;
        double maxLost = 0;
        int maxCount = 0;
        for (int i = 0; i < n; i++) {
            maxLost = Math.max(maxLost, tl.lostAllocated()[i] + tl.lostUnallocated()[i]);
            maxCount = Math.max(maxCount, tl.count()[i]);
        }
        double yMax = niceCeil(maxLost);
        double cMax = niceCeil(maxCount);
        open(b, h, "preemption-timeline");
        yAxis(b, h, bottom, yMax, "GPU-hours lost", L, "end", -6);
        yAxis(b, h, bottom, cMax, null, W - R, "start", 6);
        b.append("<text x=\"").append(W - R + 12).append("\" y=\"").append(T - 6)
                .append("\" font-size=\"11\">preemptions</text>\n");
        double slot = (double) (W - L - R) / n;
        double bw = Math.max(1, slot * 0.8);
        int labelEvery = Math.max(1, (int) Math.ceil(n / 15.0));
        StringBuilder line = new StringBuilder();
        for (int i = 0; i < n; i++) {
            double a = tl.lostAllocated()[i];
            double u = tl.lostUnallocated()[i];
            double x0 = L + i * slot + (slot - bw) / 2;
            String when = daily ? "day " + (i + 1) : "hour " + (i + 1);
            b.append("<g class=\"timeline-bucket\" data-bucket=\"").append(i).append("\"><title>").append(when)
                    .append(": ").append(tl.count()[i]).append(" preemptions, ").append(fmt(a + u, 1))
                    .append(" GPU-h lost (allocated ").append(fmt(a, 1)).append(", unallocated ").append(fmt(u, 1))
                    .append(")</title>");
            if (a > 0) {
                rect(b, x0, y(a, yMax, h, bottom), bw, y(0, yMax, h, bottom) - y(a, yMax, h, bottom), SEGMENT_COLORS[0]);
            }
            if (u > 0) {
                rect(b, x0, y(a + u, yMax, h, bottom), bw, y(a, yMax, h, bottom) - y(a + u, yMax, h, bottom),
                        SEGMENT_COLORS[2]);
            }
            b.append("</g>\n");
            double cx = x0 + bw / 2;
            line.append(fmt(cx, 1)).append(',').append(fmt(y(tl.count()[i], cMax, h, bottom), 1)).append(' ');
            if (i % labelEvery == 0) {
                b.append("<text x=\"").append(fmt(cx, 1)).append("\" y=\"").append(h - bottom + 15)
                        .append("\" font-size=\"11\" text-anchor=\"middle\">").append(i + 1).append("</text>\n");
            }
        }
        b.append("<polyline class=\"preemption-count\" fill=\"none\" stroke=\"").append(COUNT_COLOR)
                .append("\" stroke-width=\"1.5\" points=\"").append(line).append("\"/>\n");
        b.append("<text x=\"").append((W - R + L) / 2).append("\" y=\"").append(h - 6)
                .append("\" font-size=\"12\" text-anchor=\"middle\">").append(daily ? "day" : "hour")
                .append(" of the period</text>\n");
        legend(b, W - R + 50, new String[] {"lost, allocated", "lost, unallocated", "preemptions"},
                new String[] {SEGMENT_COLORS[0], SEGMENT_COLORS[2], COUNT_COLOR}, 2);
        b.append("</svg>\n");
    }

    private static void open(StringBuilder b, int h, String cls) {
        b.append("<svg class=\"").append(cls).append("\" xmlns=\"http://www.w3.org/2000/svg\" width=\"").append(W)
                .append("\" height=\"").append(h).append("\" viewBox=\"0 0 ").append(W).append(' ').append(h)
                .append("\">\n");
    }

    /** A vertical axis at {@code x} from 0 to {@code max} with five steps; a title when {@code label} is set. */
    private static void yAxis(StringBuilder b, int h, int bottom, double max, String label, int x, String anchor,
            int dx) {
        b.append("<line x1=\"").append(L).append("\" y1=\"").append(h - bottom).append("\" x2=\"").append(W - R)
                .append("\" y2=\"").append(h - bottom).append("\" stroke=\"#333\"/>\n");
        b.append("<line x1=\"").append(x).append("\" y1=\"").append(T).append("\" x2=\"").append(x)
                .append("\" y2=\"").append(h - bottom).append("\" stroke=\"#333\"/>\n");
        for (int k = 0; k <= 5; k++) {
            double v = max * k / 5;
            double py = y(v, max, h, bottom);
            b.append("<text x=\"").append(x + dx).append("\" y=\"").append(fmt(py + 4, 1))
                    .append("\" font-size=\"11\" text-anchor=\"").append(anchor).append("\">")
                    .append(fmt(v, max < 5 ? 1 : 0)).append("</text>\n");
        }
        if (label != null) {
            int mid = (h - bottom + T) / 2;
            b.append("<text x=\"14\" y=\"").append(mid).append("\" font-size=\"12\" text-anchor=\"middle\" ")
                    .append("transform=\"rotate(-90 14 ").append(mid).append(")\">").append(esc(label))
                    .append("</text>\n");
        }
    }

    /** The legend in the right margin; the entry at {@code lineEntry} (if any) is drawn as a line. */
    private static void legend(StringBuilder b, int x, String[] names, String[] colors, Integer lineEntry) {
        for (int i = 0; i < names.length; i++) {
            int py = T + 20 + i * 16;
            if (lineEntry != null && lineEntry == i) {
                b.append("<line x1=\"").append(x).append("\" x2=\"").append(x + 10).append("\" y1=\"").append(py + 6)
                        .append("\" y2=\"").append(py + 6).append("\" stroke=\"").append(colors[i])
                        .append("\" stroke-width=\"2\"/>");
            } else {
                b.append("<rect x=\"").append(x).append("\" y=\"").append(py).append("\" width=\"10\" height=\"12\" ")
                        .append("fill=\"").append(colors[i]).append("\"/>");
            }
            b.append("<text x=\"").append(x + 15).append("\" y=\"").append(py + 10).append("\" font-size=\"10\">")
                    .append(esc(names[i])).append("</text>\n");
        }
    }

    private static void rect(StringBuilder b, double x, double y, double w, double h, String color) {
        b.append("<rect x=\"").append(fmt(x, 1)).append("\" y=\"").append(fmt(y, 1)).append("\" width=\"")
                .append(fmt(w, 1)).append("\" height=\"").append(fmt(Math.max(0, h), 1)).append("\" fill=\"")
                .append(color).append("\"/>");
    }

    private static double y(double v, double max, int h, int bottom) {
        return h - bottom - v / max * (h - T - bottom);
    }

    /** The smallest 1, 2 or 5 times a power of ten at or above {@code v} (1 when v is 0). */
    static double niceCeil(double v) {
        if (!(v > 0)) {
            return 1;
        }
        double p = Math.pow(10, Math.floor(Math.log10(v)));
        for (double m : new double[] {1, 2, 5, 10}) {
            if (m * p >= v * (1 - 1e-12)) {
                return m * p;
            }
        }
        return 10 * p;
    }
}
