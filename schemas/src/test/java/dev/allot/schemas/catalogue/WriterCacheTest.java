package dev.allot.schemas.catalogue;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.schemas.JobEvent;
import dev.allot.schemas.JobExited;
import io.apicurio.registry.serde.avro.AvroSerdeConfig;
import io.apicurio.registry.serde.avro.DefaultAvroDatumProvider;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.time.Instant;
import org.apache.avro.Schema;
import org.apache.avro.SchemaBuilder;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DatumWriter;
import org.apache.avro.io.EncoderFactory;
import org.junit.jupiter.api.Test;

class WriterCacheTest {

    private static final Instant AT = Instant.parse("2026-12-06T03:00:00Z");

    @Test
    void theRegistryConfigurationNamesIt() {
        assertThat(EventSerdes.registryConfig("http://127.0.0.1:1"))
                .containsEntry(AvroSerdeConfig.AVRO_DATUM_PROVIDER, WriterCache.class);
        assertThat(new AvroSerdeConfig(EventSerdes.registryConfig("http://127.0.0.1:1")).getAvroDatumProvider())
                .isEqualTo(WriterCache.class);
    }

    @Test
    void givenOneSchemaObject_whenRecordsAreWritten_thenOneWriterServesThemAll() {
        WriterCache<Object> cache = new WriterCache<>();
        JobEvent first = exited("job-1", 0);
        JobEvent second = exited("job-2", 137);

        DatumWriter<Object> writer = cache.createDatumWriter(first, first.getSchema());

        assertThat(cache.createDatumWriter(second, second.getSchema())).isSameAs(writer);
        JobExited payload = (JobExited) first.getPayload();
        assertThat(cache.createDatumWriter(payload, payload.getSchema())).isNotSameAs(writer);
        assertThat(cache.size()).isEqualTo(2);
    }

    @Test
    void writesTheSameBytesAsApicuriosDefault() throws IOException {
        JobEvent event = exited("job-3", 3);
        WriterCache<Object> cache = new WriterCache<>();
        DefaultAvroDatumProvider<Object> plain = new DefaultAvroDatumProvider<>();

        byte[] cached = write(cache.createDatumWriter(event, event.getSchema()), event);
        byte[] cachedAgain = write(cache.createDatumWriter(event, event.getSchema()), event);

        assertThat(cached).isEqualTo(write(plain.createDatumWriter(event, event.getSchema()), event));
        assertThat(cachedAgain).isEqualTo(cached);
    }

    @Test
    void aGenericRecordGetsAGenericWriterEvenForASchemaASpecificRecordUsed() throws IOException {
        WriterCache<Object> cache = new WriterCache<>();
        Schema schema = SchemaBuilder.record("Point").fields().requiredInt("x").endRecord();
        GenericRecord point = new GenericData.Record(schema);
        point.put("x", 7);

        DatumWriter<Object> writer = cache.createDatumWriter(point, schema);

        assertThat(writer).isNotInstanceOf(org.apache.avro.specific.SpecificDatumWriter.class);
        assertThat(write(writer, point)).containsExactly(14); // zig-zag 7
    }

    @Test
    void staysBoundedWhenEverySchemaObjectIsNew() {
        WriterCache<Object> cache = new WriterCache<>();
        for (int i = 0; i < WriterCache.MAX_WRITERS * 2 + 5; i++) {
            Schema schema = SchemaBuilder.record("R" + i).fields().requiredInt("x").endRecord();
            cache.createDatumWriter(new GenericData.Record(schema), schema);
        }
        assertThat(cache.size()).isLessThanOrEqualTo(WriterCache.MAX_WRITERS);
    }

    private static byte[] write(DatumWriter<Object> writer, Object datum) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(out, null);
        writer.write(datum, encoder);
        encoder.flush();
        return out.toByteArray();
    }

    private static JobEvent exited(String job, int code) {
        return JobEvent.newBuilder().setEventId("e-" + job).setOccurredAt(AT).setJobId(job).setStateAfter(null)
                .setPayload(JobExited.newBuilder().setNodeId("node-1").setReplicaIndex(0).setExitCode(code)
                        .setStopped(false).build())
                .build();
    }
}
