package dev.allot.nodeagent;

import dev.allot.schemas.DeadLetter;
import dev.allot.schemas.UsageReported;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** Reports kept in memory, for unit tests of the agent's logic. */
final class RecordingReports implements AgentReports {

    record Report(String key, Object payload, Instant occurredAt, String eventId) {
        Report(String key, Object payload, Instant occurredAt) {
            this(key, payload, occurredAt, null);
        }
    }

    final List<Report> nodeStatus = new CopyOnWriteArrayList<>();
    final List<Report> jobEvents = new CopyOnWriteArrayList<>();
    final List<UsageReported> usage = new CopyOnWriteArrayList<>();
    final List<DeadLetter> deadLetters = new CopyOnWriteArrayList<>();

    @Override
    public void nodeStatus(String nodeId, Object payload, Instant occurredAt) {
        nodeStatus.add(new Report(nodeId, payload, occurredAt));
    }

    @Override
    public void jobEvent(String eventId, String jobId, Object payload, Instant occurredAt) {
        jobEvents.add(new Report(jobId, payload, occurredAt, eventId));
    }

    @Override
    public void usage(UsageReported report) {
        usage.add(report);
    }

    @Override
    public void deadLetter(DeadLetter deadLetter) {
        deadLetters.add(deadLetter);
    }

    @Override
    public void flush() {
    }
}
