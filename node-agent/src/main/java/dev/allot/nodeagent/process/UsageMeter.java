package dev.allot.nodeagent.process;

import java.time.Instant;
import java.util.Optional;

/**
 * Cuts the time a replica holds its GPUs into consecutive intervals that tile exactly: each cut starts
 * where the previous one ended, so the reported GPU-seconds add up to GPUs x held time, with no gap and
 * no overlap, whoever (the periodic report or the exit) cuts first. Millisecond precision, as the
 * UsageReported timestamps.
 */
public final class UsageMeter {

    /** One tile. */
    public record Tile(Instant start, Instant end, int gpus, Double meanUtilisation) {
        public double gpuSeconds() {
            return gpus * (end.toEpochMilli() - start.toEpochMilli()) / 1000.0;
        }
    }

    private final int gpus;
    private Instant reportedUntil;
    private boolean closed;
    private double utilisationSum;
    private int utilisationSamples;

    public UsageMeter(int gpus, Instant heldSince) {
        this.gpus = gpus;
        this.reportedUntil = Instant.ofEpochMilli(heldSince.toEpochMilli());
    }

    public synchronized void sampleUtilisation(double utilisation) {
        utilisationSum += utilisation;
        utilisationSamples++;
    }

    /** The tile from the end of the previous one to {@code now}; empty when nothing new is held. */
    public synchronized Optional<Tile> cut(Instant now) {
        return cutTo(now, false);
    }

    /** The last tile, up to the release; later cuts return nothing. */
    public synchronized Optional<Tile> close(Instant releasedAt) {
        return cutTo(releasedAt, true);
    }

    public synchronized Instant reportedUntil() {
        return reportedUntil;
    }

    private Optional<Tile> cutTo(Instant when, boolean last) {
        if (closed) {
            return Optional.empty();
        }
        closed = last;
        Instant end = Instant.ofEpochMilli(when.toEpochMilli());
        if (!end.isAfter(reportedUntil)) {
            return Optional.empty();
        }
        Double utilisation = utilisationSamples == 0 ? null : utilisationSum / utilisationSamples;
        Tile tile = new Tile(reportedUntil, end, gpus, utilisation);
        reportedUntil = end;
        utilisationSum = 0;
        utilisationSamples = 0;
        return Optional.of(tile);
    }
}
