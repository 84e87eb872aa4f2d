package dev.allot.edge;

import org.apache.kafka.common.errors.SerializationException;

/**
 * The record's fault: its bytes are not a readable record of the topic's type (not the wire format,
 * an unknown schema id, another record schema, truncated or corrupt Avro). Reading it again gives the
 * same answer, so the caller dead-letters it with {@link #getMessage()} as the reason and goes on.
 */
public final class InvalidRecord extends SerializationException {

    public InvalidRecord(String reason) {
        super(reason);
    }

    public InvalidRecord(String reason, Throwable cause) {
        super(reason, cause);
    }
}
