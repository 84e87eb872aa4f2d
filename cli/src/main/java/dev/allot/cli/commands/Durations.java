package dev.allot.cli.commands;

import dev.allot.cli.CliFailure;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Durations as people write them: "90" (seconds), "90s", "15m", "2h", "1h30m". */
final class Durations {

    private static final Pattern PART = Pattern.compile("(\\d+)([smhd])");

    private Durations() {
    }

    static long seconds(String option, String text) {
        String t = text.strip().toLowerCase(java.util.Locale.ROOT);
        if (t.matches("\\d+")) {
            return Long.parseLong(t);
        }
        Matcher m = PART.matcher(t);
        long total = 0;
        int end = 0;
        while (m.find() && m.start() == end) {
            long n = Long.parseLong(m.group(1));
            total += switch (m.group(2)) {
                case "s" -> n;
                case "m" -> n * 60;
                case "h" -> n * 3600;
                default -> n * 86_400;
            };
            end = m.end();
        }
        if (end != t.length() || t.isEmpty()) {
            throw CliFailure.usage(option + " '" + text + "' is not a duration; write seconds or e.g. 90s, 15m, 2h, 1h30m");
        }
        return total;
    }
}
