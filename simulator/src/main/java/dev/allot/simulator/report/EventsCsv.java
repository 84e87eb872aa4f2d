package dev.allot.simulator.report;

import dev.allot.simulator.engine.EventSink;
import java.util.Locale;

/**
 * Collects a run's events as CSV lines {@code time_s,policy,job_id,team,event,gpus,nodes} (the
 * header is written once by the command). Times are seconds from the start of the period.
 */
public final class EventsCsv implements EventSink {
    public static final String HEADER = "time_s,policy,job_id,team,event,gpus,nodes\n";

    private final String policy;
    private final StringBuilder b = new StringBuilder(1 << 16);

    public EventsCsv(String policy) {
        this.policy = policy;
    }

    @Override
    public void event(double timeSeconds, String jobId, String team, String event, int gpus, String nodes) {
        if (timeSeconds == Math.rint(timeSeconds)) {
            b.append((long) timeSeconds);
        } else {
            b.append(String.format(Locale.ROOT, "%.3f", timeSeconds));
        }
        b.append(',').append(policy).append(',').append(jobId).append(',').append(team).append(',').append(event)
                .append(',').append(gpus).append(',').append(nodes).append('\n');
    }

    public CharSequence text() {
        return b;
    }
}
