package dev.allot.accounting.streams;

import dev.allot.edge.RegistryUnavailable;
import java.time.Duration;
import org.apache.kafka.common.errors.FencedInstanceIdException;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler;
import org.jboss.logging.Logger;

/**
 * What a stream thread that died does next: if the schema registry did not answer (the intake could not read a
 * record yet), a new thread takes its tasks, after a pause, and reads from the last commit again (exactly once:
 * the failed transaction is aborted); so does one whose static membership was fenced (after a broker restart),
 * once the stale member that holds its static id is removed from the group;
 * anything else shuts the client down, as Kafka Streams does by default.
 * Quarkus installs it as the application's {@link StreamsUncaughtExceptionHandler} bean (see
 * {@link AccountingStreams}); {@link AccountingStreamsMain} sets it itself.
 */
public final class RegistryRetry implements StreamsUncaughtExceptionHandler {

    private static final Logger LOG = Logger.getLogger(RegistryRetry.class);
    static final Duration PAUSE = Duration.ofSeconds(1);

    private final StaticMembers membership;

    /** For dynamic membership. */
    public RegistryRetry() {
        this(StaticMembers.NONE);
    }

    public RegistryRetry(StaticMembers membership) {
        this.membership = membership;
    }

    @Override
    public StreamThreadExceptionResponse handle(Throwable exception) {
        for (Throwable t = exception; t != null; t = t.getCause()) {
            if (t instanceof FencedInstanceIdException) {
                // Seen after a broker restart (chaos run, 2026-12-06): a join retried across the restart left the
                // thread's static id (group.instance.id) to a member id it never learnt, and the broker fences it.
                // Shutting the client down left the service dead for good. A new thread joins under the next id,
                // and would get the tasks only once the stale member's session (45 s) has ended: so that member
                // is removed first (StaticMembers).
                LOG.warnf("this stream thread's static membership went to another member id (%s): replacing the"
                        + " thread", t.getMessage());
                membership.evictFenced(Thread.currentThread().getName());
                return StreamThreadExceptionResponse.REPLACE_THREAD;
            }
            if (t instanceof RegistryUnavailable unavailable) {
                LOG.warnf("schema registry unavailable (%s): replacing the stream thread in %s", unavailable.getMessage(),
                        PAUSE);
                pause();
                return StreamThreadExceptionResponse.REPLACE_THREAD;
            }
            if (t.getCause() == t) {
                break;
            }
        }
        LOG.error("stream thread failed; shutting the client down", exception);
        return StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
    }

    private static void pause() {
        try {
            Thread.sleep(PAUSE.toMillis()); // back-off before the registry is asked again, not synchronisation
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
