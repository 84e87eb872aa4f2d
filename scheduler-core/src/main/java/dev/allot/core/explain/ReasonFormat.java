package dev.allot.core.explain;

import java.util.Locale;

/** Formatting shared by reasons, so numbers read the same everywhere. */
public final class ReasonFormat {
    private ReasonFormat() {
    }

    public static String ratio(double r) {
        if (Double.isNaN(r)) {
            return "n/a";
        }
        if (Double.isInfinite(r)) {
            return "inf";
        }
        long m = Math.round(r * 1000);
        String digits = Long.toString(Math.abs(m) % 1000);
        return (m < 0 ? "-" : "") + Math.abs(m) / 1000 + "." + "000".substring(digits.length()) + digits;
    }

    /** Epoch millis as ISO-8601 UTC text without touching any clock. */
    public static String time(long epochMillis) {
        return java.time.Instant.ofEpochMilli(epochMillis).toString();
    }

    public static String duration(long millis) {
        long s = Math.max(0, millis) / 1000;
        return String.format(Locale.ROOT, "%dh%02dm%02ds", s / 3600, (s / 60) % 60, s % 60);
    }
}
