package dev.allot.accounting;

import dev.allot.accounting.streams.AccountingSerdes;
import dev.allot.schemas.catalogue.Topic;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.apache.avro.Schema;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.avro.specific.SpecificDatumWriter;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.Serializer;

/** Avro binary without a registry, for TopologyTestDriver unit tests only. */
public final class PlainAvroSerdes implements AccountingSerdes {

    @Override
    public <V extends SpecificRecord> Serde<V> serde(Topic<String, V> topic) {
        return of(topic.valueType());
    }

    public static <V extends SpecificRecord> Serde<V> of(Class<V> type) {
        Schema schema = SpecificData.get().getSchema(type);
        Serializer<V> serializer = (t, v) -> {
            if (v == null) {
                return null;
            }
            try {
                ByteArrayOutputStream out = new ByteArrayOutputStream();
                BinaryEncoder enc = EncoderFactory.get().binaryEncoder(out, null);
                new SpecificDatumWriter<V>(schema).write(v, enc);
                enc.flush();
                return out.toByteArray();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        };
        Deserializer<V> deserializer = (t, b) -> {
            if (b == null) {
                return null;
            }
            try {
                return new SpecificDatumReader<V>(schema).read(null, DecoderFactory.get().binaryDecoder(b, null));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        };
        return Serdes.serdeFrom(serializer, deserializer);
    }
}
