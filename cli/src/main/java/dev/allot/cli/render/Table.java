package dev.allot.cli.render;

import java.util.ArrayList;
import java.util.List;

/**
 * A text table that fits a width: columns as wide as their content, the last column taking what is
 * left and wrapped at word boundaries onto continuation lines; numeric columns right-aligned.
 */
public final class Table {

    private final List<String> headers = new ArrayList<>();
    private final List<Boolean> right = new ArrayList<>();
    private final List<String[]> rows = new ArrayList<>();

    public Table column(String header) {
        headers.add(header);
        right.add(false);
        return this;
    }

    public Table number(String header) {
        headers.add(header);
        right.add(true);
        return this;
    }

    public Table row(Object... cells) {
        if (cells.length != headers.size()) {
            throw new IllegalArgumentException(cells.length + " cells for " + headers.size() + " columns");
        }
        String[] text = new String[cells.length];
        for (int i = 0; i < cells.length; i++) {
            text[i] = cells[i] == null ? "-" : String.valueOf(cells[i]);
        }
        rows.add(text);
        return this;
    }

    public boolean isEmpty() {
        return rows.isEmpty();
    }

    public String render(int width) {
        int n = headers.size();
        int[] w = new int[n];
        for (int i = 0; i < n; i++) {
            w[i] = headers.get(i).length();
            for (String[] row : rows) {
                w[i] = Math.max(w[i], i == n - 1 ? 0 : row[i].length());
            }
        }
        int fixed = 0;
        for (int i = 0; i < n - 1; i++) {
            fixed += w[i] + 2;
        }
        int longestLast = headers.get(n - 1).length();
        for (String[] row : rows) {
            longestLast = Math.max(longestLast, row[n - 1].length());
        }
        // the last column gets the rest of the line, at least 12 columns even on a narrow terminal
        w[n - 1] = Math.max(Math.min(longestLast, width - fixed), Math.min(12, longestLast));
        StringBuilder out = new StringBuilder();
        line(out, headers.toArray(String[]::new), w);
        for (String[] row : rows) {
            List<String> last = Words.wrap(row[n - 1], w[n - 1]);
            String[] first = row.clone();
            first[n - 1] = last.get(0);
            line(out, first, w);
            for (int k = 1; k < last.size(); k++) {
                String[] more = new String[n];
                java.util.Arrays.fill(more, "");
                more[n - 1] = last.get(k);
                line(out, more, w);
            }
        }
        return out.toString();
    }

    private void line(StringBuilder out, String[] cells, int[] w) {
        StringBuilder line = new StringBuilder();
        for (int i = 0; i < cells.length; i++) {
            String cell = cells[i];
            boolean last = i == cells.length - 1;
            if (right.get(i)) {
                line.append(" ".repeat(Math.max(0, w[i] - cell.length()))).append(cell);
            } else {
                line.append(cell);
                if (!last) {
                    line.append(" ".repeat(Math.max(0, w[i] - cell.length())));
                }
            }
            if (!last) {
                line.append("  ");
            }
        }
        out.append(line.toString().stripTrailing()).append('\n');
    }
}
