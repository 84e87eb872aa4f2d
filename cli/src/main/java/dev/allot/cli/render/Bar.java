package dev.allot.cli.render;

/**
 * One budget as a bar of {@code width} cells on a scale of {@code scale}: charged as full blocks,
 * the rest of the entitlement as light shade, a '│' where owed ends (the entitlement capped at demand).
 */
public final class Bar {

    private Bar() {
    }

    public static String of(double charged, double entitled, double owed, double scale, int width) {
        char[] cells = new char[width];
        double per = scale <= 0 ? 1 : scale / width;
        for (int i = 0; i < width; i++) {
            double mid = (i + 0.5) * per;
            cells[i] = mid <= charged ? '█' : mid <= entitled ? '░' : ' ';
        }
        if (owed > 0 && scale > 0) {
            int at = (int) Math.min(width - 1, Math.max(0, Math.round(owed / per) - 1));
            cells[at] = cells[at] == '█' ? '▓' : '│';
        }
        return new String(cells);
    }
}
