package dev.allot.accounting.streams;

import dev.allot.schemas.catalogue.EventSerdes;
import io.apicurio.registry.serde.avro.AvroKafkaDeserializer;
import io.apicurio.registry.serde.avro.AvroSerdeConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
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
 * Reads the Confluent wire format (magic 0, 4-byte schema id, Avro binary) into a generated class.
 * The writer schema comes from the registry once per id (through Apicurio's deserializer in generic
 * mode); records are then decoded straight into the specific class with a class loader that sees it.
 * (Apicurio's own specific reader resolves classes through Avro's class loader, which under Quarkus
 * does not see the generated event classes: "Error getting schema [dev.allot.schemas.BudgetEvent]".)
 */
public final class WireFormatDeserializer<V extends SpecificRecord> implements Deserializer<V> {

    private final Class<V> type;
    private final Schema readerSchema;
    private final SpecificData data;
    private final AvroKafkaDeserializer<GenericContainer> generic = new AvroKafkaDeserializer<>();
    private final Map<Integer, SpecificDatumReader<V>> readers = new ConcurrentHashMap<>();
    private final ThreadLocal<BinaryDecoder> decoders = new ThreadLocal<>();

    public WireFormatDeserializer(Class<V> type, String registryUrl) {
        this.type = type;
        this.data = new SpecificData(type.getClassLoader());
        this.data.addLogicalTypeConversion(new TimeConversions.TimestampMillisConversion());
        this.readerSchema = SpecificData.get().getSchema(type);
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
            throw new SerializationException("not the Confluent wire format (magic byte 0 + 4-byte schema id)");
        }
        int id = ByteBuffer.wrap(bytes, 1, 4).getInt();
        SpecificDatumReader<V> reader = readers.computeIfAbsent(id, i -> {
            Schema writer = generic.deserialize(topic, bytes).getSchema();
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
