package dev.allot.cli.commands;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.allot.cli.render.Format;
import java.time.Duration;
import java.time.Instant;

/**
 * The scheduler's expected start of a waiting job in a few words, from the fields {@code GET /jobs/{id}}
 * answers under {@code expectedStart} ({@code at}, {@code basis}, {@code horizonSeconds}): "in 2h10m",
 * "~ in 3h00m (default run times)" when it rests on defaults, "> 7d" beyond the scheduler's horizon,
 * "any moment" when the expected time has come, "-" until the scheduler estimated it.
 */
final class StartText {

    private StartText() {
    }

    static String of(JsonNode start, Instant now) {
        if (start == null || !ApiCommand.present(start) || !ApiCommand.present(start.path("basis"))) {
            return "-";
        }
        String basis = start.path("basis").asText();
        if (basis.equals("BEYOND_HORIZON")) {
            return "> " + horizon(start.path("horizonSeconds"));
        }
        Instant at = Format.instant(start.path("at"));
        if (at == null) {
            return "-";
        }
        String when = at.isAfter(now) ? Format.relative(at, now) : "any moment";
        return basis.equals("DEFAULT") ? "~ " + when + " (default run times)" : when;
    }

    /** The same for a table column: "~ in 3h00m" without the words, which {@link #LEGEND} gives once below. */
    static String column(JsonNode start, Instant now) {
        return of(start, now).replace(" (default run times)", "");
    }

    static final String LEGEND = "~ expected start rests on default run times (low confidence); > beyond the scheduler's horizon";

    /** The same in at most 7 characters, for the live view: "2h10m", "~3h00m" (defaults), ">7d", "now", "-". */
    static String compact(JsonNode start, Instant now) {
        String text = of(start, now);
        if (text.equals("-") || text.startsWith(">")) {
            return text.replace(" ", "");
        }
        Instant at = Format.instant(start.path("at"));
        String when = at.isAfter(now) ? Format.duration(Duration.between(now, at)) : "now";
        return text.startsWith("~") ? "~" + when : when;
    }

    /** The expected start of a {@code /queue} entry in the shape of {@code GET /jobs/{id}}'s, or null if none. */
    static ObjectNode fromQueue(JsonNode entry, JsonNode queue) {
        if (entry == null || !"WAITING".equals(entry.path("state").asText())
                || !ApiCommand.present(entry.path("expectedStartBasis"))) {
            return null;
        }
        ObjectNode start = ApiCommand.PRETTY.createObjectNode();
        start.set("at", entry.path("expectedStart"));
        start.set("basis", entry.path("expectedStartBasis"));
        start.put("beyondHorizon", entry.path("expectedStartBasis").asText().equals("BEYOND_HORIZON"));
        start.set("horizonSeconds", queue.path("estimateHorizonSeconds"));
        start.set("estimatedAt", queue.path("estimatedAt"));
        return start;
    }

    private static String horizon(JsonNode seconds) {
        if (!ApiCommand.present(seconds)) {
            return "the horizon";
        }
        long s = seconds.asLong();
        return s % 86_400 == 0 ? s / 86_400 + "d" : Format.duration(Duration.ofSeconds(s));
    }
}
