package dev.allot.nodeagent;

import dev.allot.schemas.DeadLetter;
import dev.allot.schemas.UsageReported;
import java.time.Instant;

/** What the agent tells the rest of Allot. The Kafka implementation wraps payloads in their envelopes. */
public interface AgentReports {

    /** NodeRegistered or NodeHeartbeat on node-status, keyed by node. */
    void nodeStatus(String nodeId, Object payload, Instant occurredAt);

    /** JobStarted, JobExited or JobCheckpointed on job-events, keyed by job; stateAfter null (agent report). */
    default void jobEvent(String jobId, Object payload, Instant occurredAt) {
        jobEvent(java.util.UUID.randomUUID().toString(), jobId, payload, occurredAt);
    }

    /** As {@link #jobEvent(String, Object, Instant)} under {@code eventId}: a report that may be sent again. */
    void jobEvent(String eventId, String jobId, Object payload, Instant occurredAt);

    /** One tile of held GPU time on usage, keyed by job. */
    void usage(UsageReported usage);

    /** A record the agent could not process. */
    void deadLetter(DeadLetter deadLetter);

    /** Waits until everything reported so far is acknowledged (shutdown, registration). */
    void flush();
}
