package dev.allot.simulator.report;

import dev.allot.simulator.engine.RunResult;
import dev.allot.simulator.engine.StartEstimates;
import java.util.ArrayList;
import java.util.List;

/**
 * The expected start's accuracy as a picture: for each job that waited more than 10 minutes, its
 * wait as estimated at submission against the wait it had, on log scales, with the diagonal and
 * the ±25 % band. Points above the band started later than estimated, below it earlier.
 */
final class EstimateChart {
    private static final int W = 560;
    private static final int H = 440;
    private static final int L = 60;
    private static final int R = 130;
    private static final int T = 16;
    private static final int B = 44;
    /** Axis range in log10 seconds: 10 min .. 30 days. */
    private static final double LO = Math.log10(600);
    private static final double HI = Math.log10(30 * 86400.0);
    private static final String[] TICKS = {"10 min", "1 h", "6 h", "1 d", "7 d", "30 d"};
    private static final double[] TICK_SECONDS = {600, 3600, 6 * 3600, 86400, 7 * 86400, 30 * 86400};
    /** Points drawn per policy at most (every k-th sample beyond that), so the page stays small. */
    static final int MAX_POINTS = 3000;

    private EstimateChart() {
    }

    static void render(StringBuilder b, List<RunResult> runs) {
        b.append("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"").append(W).append("\" height=\"").append(H)
                .append("\" viewBox=\"0 0 ").append(W).append(' ').append(H).append("\">\n");
        for (int k = 0; k < TICKS.length; k++) {
            double v = Math.log10(TICK_SECONDS[k]);
            b.append("<line x1=\"").append(px(v)).append("\" x2=\"").append(px(v)).append("\" y1=\"").append(T)
                    .append("\" y2=\"").append(H - B).append("\" stroke=\"#eee\"/>")
                    .append("<line x1=\"").append(L).append("\" x2=\"").append(W - R).append("\" y1=\"").append(py(v))
                    .append("\" y2=\"").append(py(v)).append("\" stroke=\"#eee\"/>")
                    .append("<text x=\"").append(px(v)).append("\" y=\"").append(H - B + 15)
                    .append("\" font-size=\"11\" text-anchor=\"middle\">").append(TICKS[k]).append("</text>")
                    .append("<text x=\"").append(L - 6).append("\" y=\"").append(HtmlReport.fmt(py(v) + 4, 1))
                    .append("\" font-size=\"11\" text-anchor=\"end\">").append(TICKS[k]).append("</text>\n");
        }
        b.append("<clipPath id=\"estimate-plot\"><rect x=\"").append(L).append("\" y=\"").append(T).append("\" width=\"")
                .append(W - L - R).append("\" height=\"").append(H - T - B).append("\"/></clipPath>\n");
        // the diagonal (exact) and the band within which the actual wait is within 25 % of the estimate
        for (double f : new double[] {1.0, 0.75, 1.25}) {
            double d = Math.log10(f);
            b.append("<line x1=\"").append(px(LO)).append("\" y1=\"").append(py(LO + d)).append("\" x2=\"").append(px(HI))
                    .append("\" y2=\"").append(py(HI + d)).append("\" clip-path=\"url(#estimate-plot)\" stroke=\"")
                    .append(f == 1.0 ? "#333" : "#999")
                    .append("\" stroke-dasharray=\"").append(f == 1.0 ? "none" : "4 3").append("\"/>\n");
        }
        b.append("<rect x=\"").append(L).append("\" y=\"").append(T).append("\" width=\"").append(W - L - R)
                .append("\" height=\"").append(H - T - B).append("\" fill=\"none\" stroke=\"#333\"/>\n");
        List<String> names = new ArrayList<>();
        for (RunResult r : runs) {
            if (r.startEstimate() == null) {
                continue;
            }
            List<StartEstimates.Row> rows = r.startEstimate().measured();
            int every = Math.max(1, (rows.size() + MAX_POINTS - 1) / MAX_POINTS);
            String color = HtmlReport.color(names.size());
            b.append("<g fill=\"").append(color).append("\" fill-opacity=\"0.55\">");
            for (int i = 0; i < rows.size(); i += every) {
                StartEstimates.Row row = rows.get(i);
                double est = Math.max(1, (row.estimateMillis() - row.sampledMillis()) / 1000.0);
                double act = (row.startMillis() - row.sampledMillis()) / 1000.0;
                b.append("<circle r=\"2.2\" cx=\"").append(px(clamp(Math.log10(est)))).append("\" cy=\"")
                        .append(py(clamp(Math.log10(act)))).append("\"><title>").append(HtmlReport.esc(row.jobId()))
                        .append(": estimated ").append(HtmlReport.secs(est)).append(", waited ")
                        .append(HtmlReport.secs(act)).append("</title></circle>");
            }
            b.append("</g>\n");
            names.add(r.policy() + (r.startEstimate().oracle() == StartEstimates.Oracle.NONE ? ""
                    : " (told " + r.startEstimate().oracle().name().toLowerCase(java.util.Locale.ROOT) + ")"));
        }
        for (int i = 0; i < names.size(); i++) {
            int y = T + i * 16;
            b.append("<rect x=\"").append(W - R + 10).append("\" y=\"").append(y).append("\" width=\"10\" height=\"10\" fill=\"")
                    .append(HtmlReport.color(i)).append("\"/><text x=\"").append(W - R + 25).append("\" y=\"").append(y + 9)
                    .append("\" font-size=\"11\">").append(HtmlReport.esc(names.get(i))).append("</text>\n");
        }
        b.append("<text x=\"").append((W - R + L) / 2).append("\" y=\"").append(H - 8)
                .append("\" font-size=\"12\" text-anchor=\"middle\">estimated wait at submission</text>\n")
                .append("<text x=\"14\" y=\"").append((H - B + T) / 2).append("\" font-size=\"12\" text-anchor=\"middle\" ")
                .append("transform=\"rotate(-90 14 ").append((H - B + T) / 2).append(")\">actual wait</text>\n</svg>\n");
    }

    private static double clamp(double v) {
        return Math.max(LO, Math.min(HI, v));
    }

    private static String px(double logSeconds) {
        return HtmlReport.fmt(L + (logSeconds - LO) / (HI - LO) * (W - L - R), 1);
    }

    private static double py(double logSeconds) {
        return Math.round((H - B - (logSeconds - LO) / (HI - LO) * (H - T - B)) * 10) / 10.0;
    }
}
