package dev.allot.testsupport;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.schemas.JobRequest;
import dev.allot.schemas.catalogue.Topic;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.apache.avro.Schema;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.junit.jupiter.api.Test;

/** Events travel in the Confluent wire format, and the id in them resolves through the ccompat API. */
@AllotInfra
class WireFormatTest {

    @Test
    void givenAnEventProducedThroughTheRegistry_whenReadRaw_thenItIsMagicByteIdAndAvroBinary(AllotInfrastructure infra)
            throws Exception {
        JobRequest sent = Events.jobSubmitted("job-wire", "lab/team-b", 4);
        ConsumerRecord<byte[], byte[]> raw = theOnlyRecordRaw(infra, Events.sentToAFreshTopic(infra, "job-wire", sent));
        byte[] bytes = raw.value();

        // Confluent framing: magic byte 0, then a 4-byte big-endian schema id, then Avro binary.
        assertThat(bytes[0]).isZero();
        int schemaId = ByteBuffer.wrap(bytes, 1, 4).getInt();
        assertThat(schemaId).isPositive();
        // No schema id travels in headers.
        assertThat(raw.headers().toArray()).isEmpty();

        // The id resolves through the registry's Confluent-compatible API to our schema (nested
        // records come back as schema references, which that API also serves)...
        ConfluentCompatClient ccompat = new ConfluentCompatClient(infra.confluentCompatibleUrl());
        assertThat(ccompat.schemaDocument(schemaId).get("schema").asText()).contains("\"name\":\"JobRequest\"");
        Schema registered = ccompat.schemaById(schemaId);
        assertThat(registered.getFullName()).isEqualTo(JobRequest.getClassSchema().getFullName());
        assertThat(registered).isEqualTo(JobRequest.getClassSchema());

        // ...and the rest of the bytes is plain Avro binary of that schema.
        byte[] body = Arrays.copyOfRange(bytes, 5, bytes.length);
        JobRequest decoded = new SpecificDatumReader<JobRequest>(registered, JobRequest.getClassSchema())
                .read(null, DecoderFactory.get().binaryDecoder(body, null));
        assertThat(decoded).isEqualTo(sent);
    }

    private static ConsumerRecord<byte[], byte[]> theOnlyRecordRaw(AllotInfrastructure infra, Topic<String, ?> topic) {
        try (KafkaConsumer<byte[], byte[]> consumer = infra.rawConsumer()) {
            List<ConsumerRecord<byte[], byte[]>> records =
                    AllotInfrastructure.pollUntil(consumer, topic.name(), 1, Duration.ofSeconds(30));
            assertThat(records).hasSize(1);
            return records.get(0);
        }
    }
}
