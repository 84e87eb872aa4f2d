package dev.allot.cli.render;

import java.util.Locale;

/**
 * A small terminal chart of an hourly series, one column per hour or group of hours when the
 * hours outnumber the columns (values averaged): charged GPUs as full blocks, unallocated stacked
 * above as shaded blocks, the entitlement as a line ('─') and owed as dots ('·') where no bar is.
 * Values are GPU-hours per hour, i.e. GPUs held on average.
 */
public final class Chart {

    private Chart() {
    }

    public static String render(double[] charged, double[] unallocated, double[] entitled, double[] owed,
                                String firstLabel, String lastLabel, int width, int height) {
        int n = charged.length;
        int axis = 8;
        int columnsAvailable = Math.max(10, width - axis - 1);
        int perColumn = Math.max(1, (n + columnsAvailable - 1) / columnsAvailable);
        int m = (n + perColumn - 1) / perColumn;
        double[] c = group(charged, perColumn, m);
        double[] u = group(unallocated, perColumn, m);
        double[] e = entitled == null ? null : group(entitled, perColumn, m);
        double[] o = group(owed, perColumn, m);
        double max = 1e-9;
        for (int i = 0; i < m; i++) {
            max = Math.max(max, c[i] + u[i]);
            max = Math.max(max, o[i]);
            if (e != null) {
                max = Math.max(max, e[i]);
            }
        }
        double step = max / height;
        StringBuilder out = new StringBuilder();
        for (int r = 0; r < height; r++) {
            double bottom = (height - 1 - r) * step;
            double top = bottom + step;
            String label = r == 0 ? number(max) : r == height - 1 ? "0" : r == height / 2 ? number(max / 2) : "";
            out.append(String.format(Locale.ROOT, "%" + (axis - 1) + "s", label)).append('┤');
            StringBuilder line = new StringBuilder();
            for (int i = 0; i < m; i++) {
                double mid = bottom + step / 2;
                char cell = ' ';
                if (c[i] >= mid && c[i] > 0) {
                    cell = '█';
                } else if (c[i] + u[i] >= mid && c[i] + u[i] > 0) {
                    cell = '░';
                } else if (e != null && in(e[i], bottom, top, r == 0)) {
                    cell = '─';
                } else if (in(o[i], bottom, top, r == 0) && o[i] > 0) {
                    cell = '·';
                }
                line.append(cell);
            }
            out.append(line.toString().stripTrailing()).append('\n');
        }
        out.append(" ".repeat(axis - 1)).append('└').append("─".repeat(m)).append('\n');
        int gap = Math.max(1, m - firstLabel.length() - lastLabel.length());
        out.append(" ".repeat(axis)).append(firstLabel).append(" ".repeat(gap)).append(lastLabel).append('\n');
        String legend = (perColumn == 1 ? "1 column = 1 hour" : "1 column = " + perColumn + " hours")
                + "; GPUs held on average. █\u00a0charged ░\u00a0unallocated ─\u00a0entitled ·\u00a0owed";
        for (String line : Words.wrap(legend, Math.max(20, width - axis))) {
            out.append(" ".repeat(axis)).append(line).append('\n');
        }
        return out.toString();
    }

    private static boolean in(double v, double bottom, double top, boolean topRow) {
        return v >= bottom && (v < top || topRow);
    }

    private static double[] group(double[] values, int per, int m) {
        double[] out = new double[m];
        for (int i = 0; i < m; i++) {
            double sum = 0;
            int count = 0;
            for (int k = i * per; k < Math.min(values.length, (i + 1) * per); k++) {
                sum += values[k];
                count++;
            }
            out[i] = count == 0 ? 0 : sum / count;
        }
        return out;
    }

    private static String number(double v) {
        return v >= 100 ? String.format(Locale.ROOT, "%.0f", v)
                : v >= 10 ? String.format(Locale.ROOT, "%.1f", v) : String.format(Locale.ROOT, "%.2f", v);
    }
}
