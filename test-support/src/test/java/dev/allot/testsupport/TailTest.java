package dev.allot.testsupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.allot.schemas.JobRequest;
import dev.allot.schemas.JobSubmitted;
import dev.allot.schemas.catalogue.Topic;
import dev.allot.schemas.catalogue.Topics;
import java.time.Duration;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;

@AllotInfra
class TailTest {

    @Test
    void givenEventsAndGarbageOnATopic_whenTailed_thenTheEventsAreKeptTypedAndTheGarbageIsSkipped(
            AllotInfrastructure infra) throws Exception {
        Topic<String, JobRequest> topic = infra.freshTopic(Topics.JOB_REQUESTS);
        JobRequest first = Events.jobSubmitted("job-tail-1", "lab/team-a", 1);
        JobRequest second = Events.jobSubmitted("job-tail-2", "lab/team-a", 2);
        try (KafkaProducer<String, JobRequest> producer = infra.producer();
             KafkaProducer<String, byte[]> raw = new KafkaProducer<>(infra.clients().producerConfig("tail-test-raw"))) {
            producer.send(new ProducerRecord<>(topic.name(), "job-tail-1", first)).get();
            raw.send(new ProducerRecord<>(topic.name(), "garbage", "not avro".getBytes())).get();
            producer.send(new ProducerRecord<>(topic.name(), "job-tail-2", second)).get();
        }

        try (Tail<JobRequest> tail = new Tail<>(infra, topic)) {
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                assertThat(tail.records()).extracting(r -> r.key()).containsExactlyInAnyOrder("job-tail-1", "job-tail-2"); // 6 partitions
                assertThat(tail.skipped()).isEqualTo(1);
            });
            assertThat(tail.values(r -> r.key().equals("job-tail-2"))).containsExactly(second);
            assertThat(tail.values(r -> true)).extracting(JobRequest::getPayload)
                    .allSatisfy(p -> assertThat(p).isInstanceOf(JobSubmitted.class));
        }
    }
}
