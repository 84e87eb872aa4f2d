package dev.allot.testsupport;

import dev.allot.schemas.catalogue.Topic;
import dev.allot.schemas.catalogue.Topics;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;

import dev.allot.schemas.JobRequest;
import dev.allot.schemas.JobSubmitted;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/** Small event builders for tests. */
final class Events {

    private Events() {
    }

    /** Sends one job submission to a fresh copy of {@code job-requests} and returns that topic. */
    static Topic<String, JobRequest> sentToAFreshTopic(AllotInfrastructure infra, String key, JobRequest sent)
            throws Exception {
        Topic<String, JobRequest> topic = infra.freshTopic(Topics.JOB_REQUESTS);
        try (KafkaProducer<String, JobRequest> producer = infra.producer()) {
            producer.send(new ProducerRecord<>(topic.name(), key, sent)).get();
        }
        return topic;
    }

    static JobRequest jobSubmitted(String jobId, String budget, int gpus) {
        Instant now = Instant.ofEpochMilli(1_760_000_000_000L);
        return JobRequest.newBuilder()
                .setEventId(UUID.randomUUID().toString())
                .setOccurredAt(now)
                .setPayload(JobSubmitted.newBuilder()
                        .setJobId(jobId)
                        .setBudget(budget)
                        .setSubmitter("alice")
                        .setCluster("local")
                        .setReplicas(1)
                        .setGpusPerReplica(gpus)
                        .setMinRuntimeSeconds(600)
                        .setResumable(true)
                        .setCommand(List.of("sleep", "3"))
                        .setEnv(Map.of("EPOCHS", "3"))
                        .setExpectedDurationSeconds(null)
                        .setSubmittedAt(now)
                        .build())
                .build();
    }
}
