package dev.allot.budget.ui;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Ai2's figure: one row per GPU of each node, time running right, a bar per job run coloured by team
 * (a link to the job's page), a red mark where a run was preempted, grey where a node drained, red
 * hatching where it stopped heartbeating (lost).
 */
final class TimelineSvg {

    private TimelineSvg() {
    }

    static String svg(String cluster, List<NodeLog.NodeRow> nodes, List<Timeline.Segment> segments, long from, long to) {
        Map<String, Integer> gpusByNode = new TreeMap<>();
        nodes.forEach(n -> gpusByNode.put(n.nodeId(), n.gpus()));
        for (Timeline.Segment s : segments) {
            gpusByNode.merge(s.nodeId(), s.gpu() + 1, Math::max); // a node known only from placements
        }
        Map<String, NodeLog.NodeRow> rowsByNode = new LinkedHashMap<>();
        nodes.forEach(n -> rowsByNode.put(n.nodeId(), n));
        int rowHeight = 14;
        double left = 130;
        int width = 1000;
        double right = width - 10;
        int top = 24;
        int rows = gpusByNode.values().stream().mapToInt(Integer::intValue).sum();
        int legendTop = top + rows * rowHeight + gpusByNode.size() * 4 + 24;
        List<String> teams = segments.stream().map(Timeline.Segment::account).distinct().sorted().toList();
        int height = legendTop + 18 * ((teams.size() + 3) / 4) + 20;
        double scale = (right - left) / Math.max(1, to - from);
        Svg svg = new Svg(width, height, "GPU timeline of cluster " + cluster + ": " + segments.size() + " GPU runs on "
                + gpusByNode.size() + " nodes");
        svg.raw("<defs><pattern id=\"lost\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\"><path d=\"M0,6L6,0\""
                + " stroke=\"#c62828\" stroke-width=\"2\"/></pattern></defs>");
        DateTimeFormatter hm = DateTimeFormatter.ofPattern("HH:mm").withZone(ZoneOffset.UTC);
        long tick = tickMillis(to - from);
        for (long t = from - Math.floorMod(from, tick) + tick; t < to; t += tick) {
            double x = left + (t - from) * scale;
            svg.line(x, top - 4, x, legendTop - 20, "#e4e4e4", "").text(x, top - 8, "middle", "axis",
                    hm.format(Instant.ofEpochMilli(t)));
        }
        Map<String, Double> rowY = new LinkedHashMap<>();
        double y = top;
        for (Map.Entry<String, Integer> node : gpusByNode.entrySet()) {
            NodeLog.NodeRow row = rowsByNode.get(node.getKey());
            String state = row == null ? "" : row.lost() ? " (lost)" : row.drained() ? " (drained)" : row.draining() ? " (draining)" : "";
            svg.text(4, y + rowHeight - 3, "start", "node", node.getKey() + state);
            double nodeTop = y;
            for (int g = 0; g < node.getValue(); g++) {
                rowY.put(node.getKey() + "#" + g, y);
                svg.text(left - 4, y + rowHeight - 3, "end", "axis", "gpu " + g);
                y += rowHeight;
            }
            if (row != null) {
                for (NodeLog.Mark m : row.marks()) {
                    double x1 = left + (Math.max(m.fromMillis(), from) - from) * scale;
                    double x2 = left + (Math.min(m.toMillis(), to) - from) * scale;
                    if (x2 <= x1) {
                        continue;
                    }
                    String fill = m.kind().equals("lost") ? "url(#lost)" : m.kind().equals("drained") ? "#9e9e9e" : "#cfcfcf";
                    svg.raw("<rect class=\"mark " + m.kind() + "\" data-node=\"" + Svg.esc(node.getKey()) + "\" x=\""
                            + Svg.n(x1) + "\" y=\"" + Svg.n(nodeTop) + "\" width=\"" + Svg.n(x2 - x1) + "\" height=\""
                            + Svg.n(y - nodeTop) + "\" fill=\"" + fill + "\" opacity=\"0.55\"><title>" + Svg.esc(node.getKey()
                            + " " + m.kind() + ": " + m.note()) + "</title></rect>");
                }
            }
            y += 4;
        }
        List<String> preemptions = new ArrayList<>();
        for (Timeline.Segment s : segments) {
            Double ry = rowY.get(s.nodeId() + "#" + s.gpu());
            if (ry == null) {
                continue;
            }
            long end = s.endMillis() < 0 ? to : Math.min(s.endMillis(), to);
            double x1 = left + (Math.max(s.startMillis(), from) - from) * scale;
            double x2 = Math.max(x1 + 2, left + (end - from) * scale);
            String title = "job " + s.jobId() + " (" + s.account() + ") on " + s.nodeId() + " gpu " + s.gpu() + " from "
                    + Instant.ofEpochMilli(s.startMillis()) + (s.endMillis() < 0 ? ", running"
                    : " to " + Instant.ofEpochMilli(s.endMillis()) + ", " + s.endedBy()
                    + (s.preemptor() == null ? "" : " by job " + s.preemptor()));
            svg.raw("<a href=\"job.html?id=" + Svg.esc(s.jobId()) + "\" class=\"run\" data-job=\"" + Svg.esc(s.jobId())
                    + "\" data-account=\"" + Svg.esc(s.account()) + "\"><rect x=\"" + Svg.n(x1) + "\" y=\"" + Svg.n(ry + 1)
                    + "\" width=\"" + Svg.n(x2 - x1) + "\" height=\"" + (rowHeight - 2) + "\" rx=\"2\" fill=\""
                    + Svg.colour(s.account()) + "\"><title>" + Svg.esc(title) + "</title></rect></a>");
            if (s.endedBy() != null && s.endedBy().startsWith("preempted") && s.endMillis() <= to) {
                preemptions.add("<path class=\"preemption\" data-job=\"" + Svg.esc(s.jobId()) + "\" d=\"M" + Svg.n(x2 - 4)
                        + "," + Svg.n(ry) + "L" + Svg.n(x2 + 4) + "," + Svg.n(ry) + "L" + Svg.n(x2) + "," + Svg.n(ry + 7)
                        + "Z\" fill=\"#c62828\"><title>" + Svg.esc(title) + "</title></path>");
            }
        }
        preemptions.forEach(svg::raw);
        for (int i = 0; i < teams.size(); i++) {
            double lx = left + (i % 4) * 210;
            double ly = legendTop + (i / 4) * 18;
            svg.raw("<rect x=\"" + Svg.n(lx) + "\" y=\"" + Svg.n(ly - 10) + "\" width=\"12\" height=\"12\" fill=\""
                    + Svg.colour(teams.get(i)) + "\"/>").text(lx + 16, ly, "start", "legend", teams.get(i));
        }
        svg.text(4, height - 6, "start", "legend",
                "red triangle: preempted · grey: draining / drained · red hatching: lost (no heartbeat)");
        return svg.done();
    }

    private static long tickMillis(long span) {
        for (long t : new long[] {60_000L, 300_000L, 900_000L, 1_800_000L, 3_600_000L, 7_200_000L, 21_600_000L}) {
            if (span / t <= 12) {
                return t;
            }
        }
        return 86_400_000L;
    }
}
