package dev.allot.edge;

/**
 * At most {@code perWindow} log lines per window for an event that comes in floods (a dead letter per garbage
 * record: a flood of 10,000 made 10,000 WARN lines, hiding everything else). The others are counted, and the
 * count is reported once, with the first line of a later window. It decides only which events get a line: the
 * events themselves (the dead-letters topic, the metrics) keep every one.
 */
public final class LogThrottle {

    /** Whether this event gets its line, and how many of the last closed window got none (0: say nothing). */
    record Turn(boolean log, long suppressed) {
    }

    private final int perWindow;
    private final long windowMillis;
    private long windowStart;
    private boolean started;
    private int logged;
    private long suppressed;

    public LogThrottle(int perWindow, long windowMillis) {
        if (perWindow < 1 || windowMillis < 1) {
            throw new IllegalArgumentException("perWindow and windowMillis must be positive");
        }
        this.perWindow = perWindow;
        this.windowMillis = windowMillis;
    }

    /** Ten lines a minute: enough to see what the bad records are, not enough to drown the log. */
    public static LogThrottle perMinute() {
        return new LogThrottle(10, 60_000);
    }

    /** One event at {@code nowMillis}. */
    synchronized Turn next(long nowMillis) {
        long report = 0;
        if (!started || nowMillis - windowStart >= windowMillis) {
            report = suppressed;
            started = true;
            windowStart = nowMillis;
            logged = 0;
            suppressed = 0;
        }
        if (logged < perWindow) {
            logged++;
            return new Turn(true, report);
        }
        suppressed++;
        return new Turn(false, report);
    }

    /**
     * One event at {@code nowMillis}: {@code warn} gets the count of the closed window's unlogged {@code what}
     * first, if any, then this event's {@code line} if it gets one (built only then).
     */
    public void log(long nowMillis, String what, java.util.function.Consumer<String> warn,
            java.util.function.Supplier<String> line) {
        Turn turn = next(nowMillis);
        if (turn.suppressed() > 0) {
            warn.accept(suppressedLine(turn, what));
        }
        if (turn.log()) {
            warn.accept(line.get());
        }
    }

    /** The line that reports a turn's suppressed count, e.g. "1234 more dead letters not logged one by one ...". */
    String suppressedLine(Turn turn, String what) {
        return turn.suppressed() + " more " + what + " not logged one by one (at most " + perWindow + " lines per "
                + windowMillis / 1000 + " s)";
    }
}
