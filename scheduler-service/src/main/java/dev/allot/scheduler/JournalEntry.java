package dev.allot.scheduler;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;

/**
 * One step of the loop as written to the journal topic in the same transaction as its outputs and
 * input offsets: the inputs applied (in order), then, if {@code pass}, one scheduling pass at
 * {@code now}. Replaying the entries in order into a fresh {@link Projection} rebuilds exactly the
 * state the loop had after its last committed transaction.
 */
public record JournalEntry(long now, List<Input> inputs, boolean pass) {

    private static final ObjectMapper JSON = new ObjectMapper()
            .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

    public JournalEntry {
        inputs = List.copyOf(inputs);
    }

    public byte[] toBytes() {
        try {
            return JSON.writeValueAsBytes(this);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static JournalEntry fromBytes(byte[] bytes) {
        try {
            return JSON.readValue(bytes, JournalEntry.class);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
