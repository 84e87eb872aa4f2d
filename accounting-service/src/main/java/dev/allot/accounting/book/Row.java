package dev.allot.accounting.book;

/** Indices of an hourly row: GPU-seconds charged, unallocated (free) and demanded in that hour. */
public final class Row {
    public static final int CHARGED = 0;
    public static final int UNALLOCATED = 1;
    public static final int DEMANDED = 2;
    public static final int SIZE = 3;

    private Row() {
    }

    public static double[] empty() {
        return new double[SIZE];
    }

    public static void addTo(double[] target, double[] row) {
        for (int i = 0; i < SIZE; i++) {
            target[i] += row[i];
        }
    }
}
