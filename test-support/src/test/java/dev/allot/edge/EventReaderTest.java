package dev.allot.edge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.allot.schemas.DeadLetter;
import dev.allot.schemas.JobRequest;
import dev.allot.schemas.JobSubmitted;
import dev.allot.schemas.catalogue.DeadLetters;
import dev.allot.schemas.catalogue.EventSerdes;
import dev.allot.schemas.catalogue.Topic;
import dev.allot.schemas.catalogue.Topics;
import dev.allot.testsupport.AllotInfra;
import dev.allot.testsupport.AllotInfrastructure;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.Serde;
import org.junit.jupiter.api.Test;

/**
 * The edge's reader on real bytes, written by the registry serializer against the real registry (it lives
 * here because kafka-edge cannot depend on test-support, which depends on it). Framing and a registry that
 * does not answer: {@code EventReaderFramingTest} in kafka-edge.
 */
@AllotInfra
class EventReaderTest {

    private static final Instant AT = Instant.ofEpochMilli(1_760_000_000_000L);

    @Test
    void givenAJobRequestWrittenThroughTheRegistry_whenRead_thenTheSameEvent_nestedRecordsIncluded(
            AllotInfrastructure infra) {
        JobRequest sent = jobSubmitted("job-read");
        byte[] bytes = serialize(infra, Topics.JOB_REQUESTS, sent);

        JobRequest read = new EventReader(infra.registryUrl()).read(Topics.JOB_REQUESTS, bytes);

        assertThat(read).isEqualTo(sent);
        assertThat(read.getPayload()).isInstanceOf(JobSubmitted.class);
    }

    @Test
    void givenARecordOfAnotherSchema_whenReadAsTheTopicsType_thenSchemaInvalidNamingBoth(AllotInfrastructure infra) {
        byte[] deadLetter = serialize(infra, Topics.DEAD_LETTERS, DeadLetters.of("job-requests", 0, 1, null,
                new byte[] {1}, "test", "edge-test", AT));

        assertInvalid(infra, deadLetter)
                .hasMessageStartingWith("schema-invalid: written as dev.allot.schemas.DeadLetter (content id ")
                .hasMessageEndingWith("), expected dev.allot.schemas.JobRequest");
    }

    @Test
    void givenAnIdTheRegistryDoesNotKnow_whenRead_thenInvalidRecordNotRegistryUnavailable(AllotInfrastructure infra) {
        byte[] valid = serialize(infra, Topics.JOB_REQUESTS, jobSubmitted("job-unknown-id"));
        byte[] unknown = valid.clone();
        ByteBuffer.wrap(unknown, 1, 4).putInt(987_654_321);

        assertInvalid(infra, unknown)
                .hasMessage("unknown schema content id 987654321");
    }

    @Test
    void givenTruncatedAvro_whenRead_thenSchemaInvalid(AllotInfrastructure infra) {
        byte[] valid = serialize(infra, Topics.JOB_REQUESTS, jobSubmitted("job-truncated"));
        byte[] truncated = Arrays.copyOf(valid, valid.length / 2);

        assertInvalid(infra, truncated)
                .hasMessageStartingWith("schema-invalid: cannot read the bytes as dev.allot.schemas.JobRequest");
    }

    @Test
    void givenGarbageBehindAValidHeader_whenRead_thenInvalidRecord(AllotInfrastructure infra) {
        byte[] valid = serialize(infra, Topics.JOB_REQUESTS, jobSubmitted("job-garbage"));
        EventReader reader = new EventReader(infra.registryUrl());
        Random random = new Random(11); // seeded: the same garbage every run
        for (int i = 0; i < 200; i++) {
            byte[] garbage = new byte[5 + random.nextInt(64)];
            random.nextBytes(garbage);
            System.arraycopy(valid, 0, garbage, 0, 5);

            try {
                JobRequest read = reader.read(Topics.JOB_REQUESTS, garbage);
                assertThat(read).as("garbage that happens to decode is still a whole JobRequest").isNotNull();
            } catch (InvalidRecord expected) {
                assertThat(expected.getMessage()).startsWith("schema-invalid: cannot read the bytes as");
            }
        }
    }

    @Test
    void givenNotTheWireFormat_whenRead_thenInvalidRecord(AllotInfrastructure infra) {
        EventReader reader = new EventReader(infra.registryUrl());

        assertThatThrownBy(() -> reader.read(Topics.JOB_REQUESTS, "not avro at all".getBytes()))
                .isInstanceOf(InvalidRecord.class)
                .hasMessage("not in the wire format: magic byte 110, expected 0");
    }

    @Test
    void givenTheRegistryIsNotThere_whenReadingAValidRecord_thenRegistryUnavailable_andLaterTheSameBytesRead(
            AllotInfrastructure infra) {
        byte[] valid = serialize(infra, Topics.JOB_REQUESTS, jobSubmitted("job-registry-down"));

        assertThatThrownBy(() -> new EventReader("http://127.0.0.1:1").read(Topics.JOB_REQUESTS, valid))
                .isInstanceOf(RegistryUnavailable.class);
        assertThat(new EventReader(infra.registryUrl()).read(Topics.JOB_REQUESTS, valid).getEventId())
                .isNotBlank();
    }

    @Test
    void givenAReaderThatReadARecord_whenAReaderSharingItsSchemasReadsItWithTheRegistryGone_thenItReadsIt(
            AllotInfrastructure infra) throws Exception {
        byte[] valid = serialize(infra, Topics.JOB_REQUESTS, jobSubmitted("job-shared-schemas"));
        // the registry behind a forwarding door this test can close
        com.sun.net.httpserver.HttpServer door = com.sun.net.httpserver.HttpServer.create(
                new java.net.InetSocketAddress("127.0.0.1", 0), 0);
        java.net.http.HttpClient http = java.net.http.HttpClient.newHttpClient();
        door.createContext("/", exchange -> {
            try {
                var answer = http.send(java.net.http.HttpRequest.newBuilder(java.net.URI.create(
                        infra.registryUrl() + exchange.getRequestURI())).build(),
                        java.net.http.HttpResponse.BodyHandlers.ofByteArray());
                exchange.sendResponseHeaders(answer.statusCode(), answer.body().length);
                exchange.getResponseBody().write(answer.body());
            } catch (InterruptedException e) {
                exchange.sendResponseHeaders(502, -1);
            } finally {
                exchange.close();
            }
        });
        door.start();
        String url = "http://127.0.0.1:" + door.getAddress().getPort();
        EventReader first = new EventReader(url);
        JobRequest read = first.read(Topics.JOB_REQUESTS, valid);
        door.stop(0);

        assertThat(first.sharingSchemas().read(Topics.JOB_REQUESTS, valid)).isEqualTo(read);
        assertThatThrownBy(() -> new EventReader(url).read(Topics.JOB_REQUESTS, valid))
                .as("a reader of its own asks the registry, which is gone").isInstanceOf(RegistryUnavailable.class);
    }

    @Test
    void givenEventsOnTheBroker_whenReadByAnEventConsumerOfTheEdge_thenTyped(AllotInfrastructure infra)
            throws Exception {
        Topic<String, JobRequest> topic = infra.freshTopic(Topics.JOB_REQUESTS);
        KafkaClients clients = new KafkaClients(infra.bootstrapServers(), infra.registryUrl());
        JobRequest sent = jobSubmitted("job-consumer");
        try (KafkaProducer<String, JobRequest> producer = clients.eventProducer("edge-test", Map.of())) {
            producer.send(new ProducerRecord<>(topic.name(), "job-consumer", sent)).get();
        }

        List<ConsumerRecord<String, JobRequest>> received;
        try (KafkaConsumer<String, JobRequest> consumer = clients.eventConsumer(JobRequest.class, "edge-test",
                Map.of("group.id", "edge-test-" + topic.name()))) {
            received = AllotInfrastructure.pollUntil(consumer, topic.name(), 1, Duration.ofSeconds(30));
        }

        assertThat(received).singleElement().satisfies(r -> {
            assertThat(r.key()).isEqualTo("job-consumer");
            assertThat(r.value()).isEqualTo(sent);
        });
    }

    @Test
    void givenTheStreamsSerde_whenRoundTripped_thenTheSameEvent_andATombstoneStaysNull(AllotInfrastructure infra) {
        Serde<DeadLetter> serde = new KafkaClients(infra.bootstrapServers(), infra.registryUrl())
                .serde(Topics.DEAD_LETTERS);
        DeadLetter letter = DeadLetters.of("usage", 2, 3, "k".getBytes(), "v".getBytes(), "why", "edge-test", AT);

        byte[] bytes = serde.serializer().serialize(Topics.DEAD_LETTERS.name(), letter);

        assertThat(serde.deserializer().deserialize(Topics.DEAD_LETTERS.name(), bytes)).isEqualTo(letter);
        assertThat(serde.deserializer().deserialize(Topics.DEAD_LETTERS.name(), null)).isNull();
    }

    /** Reading {@code bytes} as a job request fails as the record's fault (a dead letter), never as a retry. */
    private static org.assertj.core.api.AbstractThrowableAssert<?, ? extends Throwable> assertInvalid(
            AllotInfrastructure infra, byte[] bytes) {
        return assertThatThrownBy(() -> new EventReader(infra.registryUrl()).read(Topics.JOB_REQUESTS, bytes))
                .isInstanceOf(InvalidRecord.class);
    }

    private static <V extends SpecificRecord> byte[] serialize(AllotInfrastructure infra, Topic<String, V> topic,
                                                               V value) {
        return EventSerdes.<V>valueSerializer(infra.registryUrl()).serialize(topic.name(), value);
    }

    private static JobRequest jobSubmitted(String jobId) {
        return JobRequest.newBuilder().setEventId("event-" + jobId).setOccurredAt(AT)
                .setPayload(JobSubmitted.newBuilder().setJobId(jobId).setBudget("lab/team").setSubmitter("alice")
                        .setCluster("local").setReplicas(1).setGpusPerReplica(2).setMinRuntimeSeconds(600)
                        .setResumable(true).setCommand(List.of("sleep", "3")).setEnv(Map.of("EPOCHS", "3"))
                        .setExpectedDurationSeconds(null).setSubmittedAt(AT).build())
                .build();
    }
}
