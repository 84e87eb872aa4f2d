package dev.allot.nodeagent.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.schemas.JobEvent;
import dev.allot.schemas.JobExited;
import dev.allot.schemas.catalogue.Topics;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/** A report the registry could not register yet is kept and sent once it can (unit test on Kafka's MockProducer). */
class KafkaAgentReportsTest {

    @Test
    void givenTheRegistryDoesNotAnswerTwice_whenAnExitIsReported_thenItIsSerialisedAgainAndSent() {
        AtomicInteger serialisations = new AtomicInteger();
        Serializer<SpecificRecord> registryAwayTwice = (topic, value) -> {
            if (serialisations.incrementAndGet() <= 2) {
                throw new SerializationException("the schema registry did not answer (3 attempts of 10 s)");
            }
            return new byte[] {0};
        };
        MockProducer<String, SpecificRecord> producer = new MockProducer<>(true, null, new StringSerializer(),
                registryAwayTwice);
        KafkaAgentReports reports = new KafkaAgentReports(producer, Duration.ofMillis(1));

        reports.jobEvent("e-1", "job-1", JobExited.newBuilder().setNodeId("node-1").setReplicaIndex(0).setExitCode(3)
                .setStopped(false).build(), Instant.parse("2026-12-07T08:00:00Z"));

        assertThat(serialisations).hasValue(3);
        assertThat(producer.history()).singleElement().satisfies(sent -> {
            assertThat(sent.topic()).isEqualTo(Topics.JOB_EVENTS.name());
            assertThat(sent.key()).isEqualTo("job-1");
            assertThat(((JobEvent) sent.value()).getPayload()).isInstanceOfSatisfying(JobExited.class,
                    exited -> assertThat(exited.getExitCode()).isEqualTo(3));
        });
    }
}
