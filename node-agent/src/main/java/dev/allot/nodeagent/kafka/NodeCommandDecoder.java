package dev.allot.nodeagent.kafka;

import dev.allot.schemas.NodeCommand;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.avro.Schema;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificDatumReader;

/**
 * Turns a node-commands value (Confluent wire format: magic byte, 4-byte schema id, Avro binary) into our
 * {@link NodeCommand}, resolving the writer's schema (from the registry) against the one we were built with,
 * so a scheduler on a newer, compatible schema is still understood.
 *
 * <p>Why not the registry's specific reader: it looks generated classes up by name through a global
 * {@code SpecificData}, which under Quarkus' test class loading can find a copy of the class from another
 * class loader (ClassCastException). Binding the reader to the class loader of {@link NodeCommand} itself
 * is correct everywhere.
 */
final class NodeCommandDecoder {

    private static final int HEADER = 5;
    private final SpecificData model = new SpecificData(NodeCommand.class.getClassLoader());
    private final Map<Schema, SpecificDatumReader<NodeCommand>> readers = new ConcurrentHashMap<>();

    NodeCommand decode(Schema writer, byte[] wire) {
        if (!NodeCommand.getClassSchema().getFullName().equals(writer.getFullName())) {
            throw new IllegalArgumentException("not a NodeCommand but a " + writer.getFullName());
        }
        SpecificDatumReader<NodeCommand> reader = readers.computeIfAbsent(writer,
                w -> new SpecificDatumReader<>(w, NodeCommand.getClassSchema(), model));
        try {
            return reader.read(null, DecoderFactory.get().binaryDecoder(wire, HEADER, wire.length - HEADER, null));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
