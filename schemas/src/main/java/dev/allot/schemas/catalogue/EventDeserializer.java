package dev.allot.schemas.catalogue;

import io.apicurio.registry.serde.avro.AvroKafkaDeserializer;
import io.apicurio.registry.serde.avro.AvroSerdeConfig;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.avro.Schema;
import org.apache.avro.data.TimeConversions;
import org.apache.avro.generic.GenericContainer;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Deserializer;

/**
 * Reads a catalogue value (Confluent wire format: magic 0, 4-byte schema id, Avro binary) into its
 * generated class. The writer schema comes from the registry once per id (through Apicurio's
 * deserializer in generic mode); records are then decoded straight into the class, with Avro schema
 * resolution, by a {@link SpecificData} bound to the class's own class loader.
 *
 * <p>Why not Apicurio's specific reader: it resolves generated classes through Avro's shared
 * {@code SpecificData}, which under Quarkus (dev and test class loaders) finds another loader's copy
 * ("Error getting schema [dev.allot.schemas.BudgetEvent]", ClassCastException). And a record written
 * with another record schema than the topic's (schema-invalid) is refused here by name.
 */
public final class EventDeserializer<V extends SpecificRecord> implements Deserializer<V> {

    private final Class<V> type;
    private final Schema readerSchema;
    private final SpecificData data;
    private final AvroKafkaDeserializer<GenericContainer> generic = new AvroKafkaDeserializer<>();
    private final Map<Integer, SpecificDatumReader<V>> readers = new ConcurrentHashMap<>();
    private final ThreadLocal<BinaryDecoder> decoders = new ThreadLocal<>();

    public EventDeserializer(Class<V> type, String registryUrl) {
        this.type = type;
        this.data = new SpecificData(type.getClassLoader());
        this.data.addLogicalTypeConversion(new TimeConversions.TimestampMillisConversion());
        this.readerSchema = data.getSchema(type);
        Map<String, Object> config = EventSerdes.registryConfig(registryUrl);
        config.put(AvroSerdeConfig.USE_SPECIFIC_AVRO_READER, false);
        generic.configure(config, false);
    }

    @Override
    public V deserialize(String topic, byte[] bytes) {
        if (bytes == null) {
            return null;
        }
        if (bytes.length < 5 || bytes[0] != 0) {
            throw new SerializationException("not the Confluent wire format (magic byte 0 + 4-byte schema id): "
                    + (bytes.length == 0 ? "empty" : "magic byte " + bytes[0] + ", " + bytes.length + " bytes"));
        }
        int id = ByteBuffer.wrap(bytes, 1, 4).getInt();
        SpecificDatumReader<V> reader = readers.computeIfAbsent(id, i -> {
            Schema writer = generic.deserialize(topic, bytes).getSchema();
            if (!writer.getFullName().equals(readerSchema.getFullName())) {
                throw new SerializationException("schema-invalid: written as " + writer.getFullName()
                        + " (schema id " + id + "), expected " + readerSchema.getFullName());
            }
            return new SpecificDatumReader<>(writer, readerSchema, data);
        });
        try {
            BinaryDecoder decoder = DecoderFactory.get().binaryDecoder(bytes, 5, bytes.length - 5, decoders.get());
            decoders.set(decoder);
            return type.cast(reader.read(null, decoder));
        } catch (IOException | RuntimeException e) {
            throw new SerializationException("cannot decode " + type.getSimpleName() + ": " + e, e);
        }
    }

    @Override
    public void close() {
        generic.close();
    }
}
