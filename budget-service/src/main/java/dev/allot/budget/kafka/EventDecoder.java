package dev.allot.budget.kafka;

import dev.allot.schemas.catalogue.EventSerdes;
import io.apicurio.registry.serde.avro.AvroKafkaDeserializer;
import io.apicurio.registry.serde.avro.AvroSerdeConfig;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.avro.Schema;
import org.apache.avro.data.TimeConversions;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.header.Headers;

/**
 * Reads catalogue values (Confluent wire format) into the generated classes of the event contract.
 *
 * <p>Why not the registry's specific reader: it resolves generated classes by name through Avro's
 * shared {@code SpecificData} singleton, whose class cache is filled by whichever thread first asks;
 * under Quarkus (dev and test class loaders) that can be another loader's copy of the class, and
 * every later record fails with a ClassCastException. Here the registry deserialiser only produces a
 * generic record in the writer's schema, and a {@link SpecificDatumReader} bound to this module's
 * class loader resolves it against the reader schema of the expected class (so older writer
 * schemas are read by Avro's schema resolution).
 */
public final class EventDecoder {

    private final AvroKafkaDeserializer<Object> generic = new AvroKafkaDeserializer<>();
    private final SpecificData model;
    private final GenericData writerModel = new GenericData();
    private record ReaderKey(Class<?> type, Schema writer) {
    }

    private final Map<ReaderKey, SpecificDatumReader<?>> readers = new ConcurrentHashMap<>();

    public EventDecoder(String registryUrl) {
        Map<String, Object> config = new java.util.HashMap<>(EventSerdes.registryConfig(registryUrl));
        config.put(AvroSerdeConfig.USE_SPECIFIC_AVRO_READER, false);
        generic.configure(config, false);
        model = new SpecificData(EventDecoder.class.getClassLoader());
        model.addLogicalTypeConversion(new TimeConversions.TimestampMillisConversion());
        writerModel.addLogicalTypeConversion(new TimeConversions.TimestampMillisConversion());
    }

    public <V extends SpecificRecord> V decode(String topic, Headers headers, byte[] value, Class<V> type) {
        Object decoded = generic.deserialize(topic, headers, value);
        if (!(decoded instanceof GenericRecord record)) {
            throw new IllegalArgumentException("not an Avro record: " + (decoded == null ? "null" : decoded.getClass()));
        }
        Schema writer = record.getSchema();
        if (!writer.getFullName().equals(type.getName())) {
            throw new IllegalArgumentException("expected " + type.getName() + " but the record is " + writer.getFullName());
        }
        try {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream(value.length);
            BinaryEncoder encoder = EncoderFactory.get().directBinaryEncoder(bytes, null);
            new GenericDatumWriter<GenericRecord>(writer, writerModel).write(record, encoder);
            encoder.flush();
            @SuppressWarnings("unchecked")
            SpecificDatumReader<V> reader = (SpecificDatumReader<V>) readers.computeIfAbsent(
                    new ReaderKey(type, writer),
                    k -> new SpecificDatumReader<>(writer, model.getSchema(type), model));
            return reader.read(null, DecoderFactory.get().binaryDecoder(bytes.toByteArray(), null));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
