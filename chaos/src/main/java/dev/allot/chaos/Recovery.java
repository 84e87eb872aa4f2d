package dev.allot.chaos;

import java.util.ArrayList;
import java.util.List;

/**
 * One kill and what followed, as the driver saw it (epoch millis): killed with SIGKILL, restarted as an operator
 * would, serving again (health ready; for the broker, its port open). Recovery is measured from the kill.
 */
public record Recovery(String component, long killedAt, long restartedAt, long readyAt) {

    /** Seconds from the kill until the component served again. */
    public double seconds() {
        return (readyAt - killedAt) / 1000.0;
    }

    /** Seconds from the restart until it served again (the component's own start). */
    public double startSeconds() {
        return (readyAt - restartedAt) / 1000.0;
    }

    /** The driver's file: one kill a line, {@code COMPONENT KILLED_AT RESTARTED_AT READY_AT}; blank and # lines skipped. */
    public static List<Recovery> parse(List<String> lines) {
        List<Recovery> out = new ArrayList<>();
        for (String line : lines) {
            String l = line.strip();
            if (l.isEmpty() || l.startsWith("#")) {
                continue;
            }
            String[] f = l.split("\\s+");
            if (f.length != 4) {
                throw new IllegalArgumentException("a recovery line is 'COMPONENT KILLED_AT RESTARTED_AT READY_AT', not '" + l + "'");
            }
            out.add(new Recovery(f[0], Long.parseLong(f[1]), Long.parseLong(f[2]), Long.parseLong(f[3])));
        }
        return out;
    }

    public String line() {
        return component + " " + killedAt + " " + restartedAt + " " + readyAt;
    }
}
