package dev.allot.budget.ui;

import dev.allot.core.metrics.OwedHours;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;

/**
 * One account's owed hours against delivered over the last 7 days, hour by hour: owed = entitlement
 * (fraction of the cluster x capacity, under the current tree) capped at the demand of the account and
 * its descendants; delivered = GPU-hours their allocated jobs held. Totals and the capped ratio are
 * scheduler-core's {@link OwedHours}, the definitions the accounting-service and the simulator use.
 */
final class OwedChart {

    static final int HOURS = 7 * 24;

    record Figures(String account, long firstHour, double entitledPerHour, double[] owed, double[] delivered,
                   OwedHours.Team team) {
    }

    static Figures figures(DemandHours demand, String cluster, String account, List<String> members,
                           double fractionOfCluster, int capacityGpus, long now) {
        long firstHour = now - Math.floorMod(now, DemandHours.HOUR) - (HOURS - 1) * DemandHours.HOUR;
        double[][] series = demand.series(cluster, members, firstHour, HOURS);
        double perHour = fractionOfCluster * capacityGpus * 3600.0;
        double[] entitled = new double[HOURS];
        java.util.Arrays.fill(entitled, perHour);
        double[] owed = OwedHours.owed(entitled, series[0]);
        return new Figures(account, firstHour, perHour, owed, series[1], OwedHours.team(account, entitled, series[0],
                series[1]));
    }

    static String svg(Figures f) {
        int width = 860;
        int height = 240;
        double left = 48;
        double right = width - 12;
        double top = 26;
        double bottom = height - 34;
        double max = f.entitledPerHour() / 3600.0;
        for (int i = 0; i < HOURS; i++) {
            max = Math.max(max, Math.max(f.owed()[i], f.delivered()[i]) / 3600.0);
        }
        max = max <= 0 ? 1 : max * 1.1;
        double step = (right - left) / HOURS;
        double scale = (bottom - top) / max;
        OwedHours.Team t = f.team();
        String summary = String.format(java.util.Locale.ROOT,
                "%s: owed %.2f GPU-h, delivered %.2f GPU-h over 7 days, delivered/owed %s", f.account(),
                t.owedGpuHours(), t.deliveredGpuHours(), t.owedAnything() ? pct(t.ratio()) : "n/a (owed nothing)");
        Svg svg = new Svg(width, height, summary);
        svg.text(left, 16, "start", "title", summary);
        for (int k = 0; k <= 4; k++) {
            double v = max * k / 4;
            double y = bottom - v * scale;
            svg.line(left, y, right, y, "#ddd", "stroke-width=\"1\"")
                    .text(left - 4, y + 4, "end", "axis", String.format(java.util.Locale.ROOT, "%.1f", v));
        }
        DateTimeFormatter day = DateTimeFormatter.ofPattern("EEE dd").withZone(ZoneOffset.UTC);
        for (int i = 0; i < HOURS; i++) {
            long hour = f.firstHour() + i * DemandHours.HOUR;
            double x = left + i * step;
            if (Math.floorMod(hour, 86_400_000L) == 0) {
                svg.line(x, top, x, bottom, "#bbb", "stroke-dasharray=\"2,3\"")
                        .text(x + 2, bottom + 14, "start", "axis", day.format(Instant.ofEpochMilli(hour)));
            }
            double d = f.delivered()[i] / 3600.0;
            if (d > 0) {
                svg.raw("<rect class=\"delivered\" x=\"" + Svg.n(x) + "\" y=\"" + Svg.n(bottom - d * scale) + "\" width=\""
                        + Svg.n(Math.max(1, step - 0.5)) + "\" height=\"" + Svg.n(d * scale) + "\" fill=\"#3b7dd8\"><title>"
                        + Instant.ofEpochMilli(hour) + ": delivered " + String.format(java.util.Locale.ROOT, "%.2f", d)
                        + " GPU-h, owed " + String.format(java.util.Locale.ROOT, "%.2f", f.owed()[i] / 3600.0)
                        + "</title></rect>");
            }
        }
        StringBuilder owed = new StringBuilder();
        for (int i = 0; i < HOURS; i++) {
            double y = bottom - f.owed()[i] / 3600.0 * scale;
            owed.append(i == 0 ? "M" : "L").append(Svg.n(left + i * step)).append(',').append(Svg.n(y))
                    .append("L").append(Svg.n(left + (i + 1) * step)).append(',').append(Svg.n(y));
        }
        svg.raw("<path class=\"owed\" d=\"" + owed + "\" fill=\"none\" stroke=\"#e8710a\" stroke-width=\"2\"/>");
        double ey = bottom - f.entitledPerHour() / 3600.0 * scale;
        svg.line(left, ey, right, ey, "#777", "stroke-dasharray=\"6,4\" class=\"entitled\"");
        svg.text(right, height - 4, "end", "legend",
                "bars: delivered GPU-h per hour · orange: owed (entitlement capped at demand) · dashed: entitlement");
        return svg.done();
    }

    static String pct(double ratio) {
        return String.format(java.util.Locale.ROOT, "%.1f %%", ratio * 100);
    }
}
