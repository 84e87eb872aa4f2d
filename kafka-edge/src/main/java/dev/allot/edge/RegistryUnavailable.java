package dev.allot.edge;

/**
 * Not the record's fault: the schema registry did not answer (unreachable, timed out, or an answer other
 * than 200 or 404). The same record may read fine a moment later, so it must never be dead-lettered:
 * the caller stops where it is and reads the record again after a pause (see {@link Redelivery}).
 */
public final class RegistryUnavailable extends RuntimeException {

    public RegistryUnavailable(String message, Throwable cause) {
        super(message, cause);
    }
}
