package dev.allot.edge;

import dev.allot.schemas.catalogue.Topic;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.avro.Schema;
import org.apache.avro.data.TimeConversions;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.avro.specific.SpecificDatumWriter;
import org.apache.avro.specific.SpecificRecord;

/**
 * The one reader of catalogue values: Confluent wire format (magic byte 0, a 4-byte big-endian content id,
 * Avro binary) into the generated class a topic carries, resolving the writer's schema (from the registry,
 * once per id) against the class's own, so a writer on a newer compatible schema is still understood.
 *
 * <p>Two ways out besides the event, and callers must tell them apart:
 * <ul>
 *   <li>{@link InvalidRecord}: the record's fault (not the wire format, an unknown content id, written with
 *       another record schema than the topic's, truncated or corrupt Avro). Dead-letter it with the reason.</li>
 *   <li>{@link RegistryUnavailable}: the registry did not answer. Never dead-letter; read it again later.</li>
 * </ul>
 *
 * <p>Why not Apicurio's deserializer: it resolves generated classes by name through Avro's shared
 * {@code SpecificData}, which under Quarkus' dev and test class loaders finds another loader's copy of the
 * class (ClassCastException, "Error getting schema"). Here classes are resolved in the class loader of the
 * type asked for, so nested records and union branches are the very classes the caller casts to; and a
 * record of another schema is named schema-invalid instead of surfacing as a cast error.
 *
 * <p>Thread-safe; share one per service (the caches are per instance).
 */
public final class EventReader {

    private static final int HEADER = 5;

    private record ReaderKey(int contentId, Class<?> type) {
    }

    private final WriterSchemas schemas;
    private final Map<ClassLoader, SpecificData> models = new ConcurrentHashMap<>();
    private final Map<ReaderKey, SpecificDatumReader<?>> readers = new ConcurrentHashMap<>();
    private final ThreadLocal<BinaryDecoder> decoders = new ThreadLocal<>();

    /** @param registryUrl the registry's base URL ({@code http://host:port}) or any of its API URLs */
    public EventReader(String registryUrl) {
        this(new WriterSchemas(registryUrl));
    }

    private EventReader(WriterSchemas schemas) {
        this.schemas = schemas;
    }

    /**
     * A reader of its own (its own Avro readers, whose caches are not thread-safe) that shares this one's writer
     * schemas: what this reader has read, it reads without asking the registry again (while the registry is down).
     */
    public EventReader sharingSchemas() {
        return new EventReader(schemas);
    }

    /** Reads a value of {@code topic}; see {@link #read(byte[], Class)}. */
    public <V extends SpecificRecord> V read(Topic<String, V> topic, byte[] bytes) {
        return read(bytes, topic.valueType());
    }

    /**
     * @return the event, never null
     * @throws InvalidRecord       the bytes are not a record of {@code type}; the message is the reason
     * @throws RegistryUnavailable the writer's schema could not be fetched; try the same record again later
     */
    public <V extends SpecificRecord> V read(byte[] bytes, Class<V> type) {
        if (bytes == null || bytes.length < HEADER) {
            throw new InvalidRecord("not in the wire format: " + (bytes == null ? "no value" : bytes.length + " bytes"));
        }
        if (bytes[0] != 0) {
            throw new InvalidRecord("not in the wire format: magic byte " + bytes[0] + ", expected 0");
        }
        int contentId = ByteBuffer.wrap(bytes, 1, 4).getInt();
        SpecificDatumReader<V> reader = reader(contentId, type);
        try {
            BinaryDecoder decoder = DecoderFactory.get().binaryDecoder(bytes, HEADER, bytes.length - HEADER,
                    decoders.get());
            decoders.set(decoder);
            return type.cast(reader.read(null, decoder));
        } catch (IOException | RuntimeException e) {
            throw new InvalidRecord("schema-invalid: cannot read the bytes as " + type.getName() + " (content id "
                    + contentId + "): " + e, e);
        }
    }

    /**
     * Loads and compiles the decoding path of {@code sample}'s class before the first real record (a service
     * whose first record is latency-sensitive calls this at start): encodes the sample and decodes it back with
     * the class's own schema, without the registry. Returns the copy read back.
     */
    public <V extends SpecificRecord> V warmUp(V sample) {
        @SuppressWarnings("unchecked")
        Class<V> type = (Class<V>) sample.getClass();
        SpecificData model = models.computeIfAbsent(type.getClassLoader(), EventReader::model);
        Schema schema = model.getSchema(type);
        try {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(out, null);
            new SpecificDatumWriter<V>(schema, model).write(sample, encoder);
            encoder.flush();
            byte[] body = out.toByteArray();
            return type.cast(new SpecificDatumReader<V>(schema, schema, model)
                    .read(null, DecoderFactory.get().binaryDecoder(body, null)));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @SuppressWarnings("unchecked")
    private <V extends SpecificRecord> SpecificDatumReader<V> reader(int contentId, Class<V> type) {
        ReaderKey key = new ReaderKey(contentId, type);
        SpecificDatumReader<?> known = readers.get(key);
        if (known != null) {
            return (SpecificDatumReader<V>) known;
        }
        Schema writer = schemas.byId(contentId);
        SpecificData model = models.computeIfAbsent(type.getClassLoader(), EventReader::model);
        Schema expected = model.getSchema(type);
        if (!writer.getFullName().equals(expected.getFullName())) {
            throw new InvalidRecord("schema-invalid: written as " + writer.getFullName() + " (content id " + contentId
                    + "), expected " + expected.getFullName());
        }
        return (SpecificDatumReader<V>) readers.computeIfAbsent(key,
                k -> new SpecificDatumReader<>(writer, expected, model));
    }

    /**
     * The Avro model the edge reads generated classes with: classes resolved in {@code loader} (the schema classes'
     * own, not Avro's: Quarkus loads them apart) and timestamp-millis as {@link java.time.Instant}.
     */
    public static SpecificData model(ClassLoader loader) {
        SpecificData model = new SpecificData(loader);
        model.addLogicalTypeConversion(new TimeConversions.TimestampMillisConversion());
        return model;
    }
}
