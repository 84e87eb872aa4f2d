package dev.allot.simulator.report;

import java.io.PrintStream;
import java.util.Locale;
import java.util.function.DoubleConsumer;

/**
 * Progress of parallel runs on stderr: a redrawn bar on a terminal, otherwise a line each time a
 * run passes another quarter. Never writes to stdout.
 */
public final class Progress {
    private final String[] names;
    private final double[] done;
    private final boolean terminal;
    private final PrintStream err;
    private final boolean quiet;
    private long lastDraw;
    private final long started = System.nanoTime();

    public Progress(String[] names, boolean terminal, boolean quiet, PrintStream err) {
        this.names = names.clone();
        this.done = new double[names.length];
        this.terminal = terminal;
        this.quiet = quiet;
        this.err = err;
    }

    public DoubleConsumer listener(int i) {
        return f -> update(i, f);
    }

    private synchronized void update(int i, double f) {
        if (quiet) {
            return;
        }
        double before = done[i];
        done[i] = f;
        if (terminal) {
            long nowNanos = System.nanoTime();
            if (nowNanos - lastDraw > 150_000_000L || f >= 1.0) {
                lastDraw = nowNanos;
                draw();
            }
        } else if ((int) (before * 4) != (int) (f * 4)) {
            err.printf(Locale.ROOT, "simulate: %s %3.0f%% after %.0f s%n", names[i], f * 100,
                    (System.nanoTime() - started) / 1e9);
        }
    }

    private void draw() {
        StringBuilder b = new StringBuilder("\r");
        double total = 0;
        for (double d : done) {
            total += d;
        }
        total /= done.length;
        int width = 30;
        int fill = (int) Math.round(total * width);
        b.append('[').append("#".repeat(fill)).append(" ".repeat(width - fill)).append("] ")
                .append(String.format(Locale.ROOT, "%3.0f%%", total * 100));
        for (int i = 0; i < names.length; i++) {
            b.append(String.format(Locale.ROOT, " %s:%.0f%%", names[i], done[i] * 100));
        }
        err.print(b);
        err.flush();
    }

    public synchronized void finish() {
        if (terminal && !quiet) {
            err.println();
        }
    }
}
