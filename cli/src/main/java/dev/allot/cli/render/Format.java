package dev.allot.cli.render;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

/** How numbers, durations and times read in the tables. */
public final class Format {

    private static final DateTimeFormatter CLOCK = DateTimeFormatter.ofPattern("MM-dd HH:mm:ss", Locale.ROOT);

    private Format() {
    }

    /** "3d4h", "2h05m", "4m10s", "12s". */
    public static String duration(Duration d) {
        long s = Math.abs(d.getSeconds());
        if (s >= 86_400) {
            return s / 86_400 + "d" + (s % 86_400) / 3600 + "h";
        }
        if (s >= 3600) {
            return s / 3600 + "h" + String.format(Locale.ROOT, "%02d", (s % 3600) / 60) + "m";
        }
        if (s >= 60) {
            return s / 60 + "m" + String.format(Locale.ROOT, "%02d", s % 60) + "s";
        }
        return s + "s";
    }

    /** "4m10s ago" or "in 2h05m". */
    public static String relative(Instant at, Instant now) {
        if (at == null) {
            return "-";
        }
        Duration d = Duration.between(now, at);
        return d.isNegative() ? duration(d) + " ago" : "in " + duration(d);
    }

    public static String clock(Instant at) {
        return at == null ? "-" : CLOCK.format(at.atZone(ZoneId.systemDefault()));
    }

    public static Instant instant(JsonNode node) {
        if (node == null || node.isNull() || node.isMissingNode() || node.asText().isBlank()) {
            return null;
        }
        try {
            return Instant.parse(node.asText());
        } catch (RuntimeException e) {
            return null;
        }
    }

    /** GPU-hours with a precision that suits their size. */
    public static String hours(JsonNode node) {
        return node == null || node.isNull() || node.isMissingNode() ? "-" : hours(node.asDouble());
    }

    public static String hours(double h) {
        double a = Math.abs(h);
        return String.format(Locale.ROOT, a >= 100 ? "%.0f" : a >= 10 ? "%.1f" : "%.2f", h);
    }

    public static String ratio(JsonNode node) {
        return node == null || node.isNull() || node.isMissingNode() ? "-"
                : String.format(Locale.ROOT, "%.2f", node.asDouble());
    }

    public static String percent(JsonNode node) {
        return node == null || node.isNull() || node.isMissingNode() ? "-"
                : String.format(Locale.ROOT, "%.1f%%", node.asDouble() * 100);
    }

    public static String text(JsonNode node) {
        return node == null || node.isNull() || node.isMissingNode() ? null : node.asText();
    }
}
