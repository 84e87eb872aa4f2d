package dev.allot.testsupport;

import dev.allot.edge.KafkaClients;
import dev.allot.schemas.JobRequest;
import dev.allot.schemas.JobSubmitted;
import dev.allot.schemas.catalogue.Topic;
import dev.allot.schemas.catalogue.TopicCreator;
import dev.allot.schemas.catalogue.Topics;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * {@code bin/allot smoke}: produces one JobSubmitted through the local broker and registry to a
 * throw-away topic, reads it back raw, checks the Confluent framing and that the schema id resolves
 * through the registry's Confluent-compatible API, then deletes the topic.
 */
public final class Smoke {

    public static void main(String[] args) throws Exception {
        String bootstrap = args.length > 0 ? args[0] : "127.0.0.1:9092";
        String registry = args.length > 1 ? args[1] : "http://127.0.0.1:8080";
        Topic<String, JobRequest> topic = new Topic<>("allot-smoke-" + UUID.randomUUID().toString().substring(0, 8),
                String.class, JobRequest.class, 1, Topic.CleanupPolicy.DELETE, "job id");
        // ALLOT_KAFKA_CONFIG: a client properties file (bin/allot smoke gives it the admin's: it creates a topic)
        KafkaClients kafka = new KafkaClients(bootstrap, registry, dev.allot.edge.security.KafkaSecurity.fromEnvironment());
        try (Admin admin = kafka.admin()) {
            TopicCreator.createTopics(admin, List.of(topic), (short) 1);
            try {
                run(kafka, topic);
            } finally {
                admin.deleteTopics(List.of(topic.name())).all().get();
            }
        }
    }

    private static void run(KafkaClients kafka, Topic<String, JobRequest> topic) throws Exception {
        Instant now = Instant.now();
        JobRequest sent = JobRequest.newBuilder().setEventId(UUID.randomUUID().toString()).setOccurredAt(now)
                .setPayload(JobSubmitted.newBuilder().setJobId("smoke-" + now.toEpochMilli()).setBudget("smoke/team")
                        .setSubmitter(System.getProperty("user.name", "smoke")).setCluster("local").setReplicas(1)
                        .setGpusPerReplica(1).setMinRuntimeSeconds(0).setResumable(false)
                        .setCommand(List.of("true")).setExpectedDurationSeconds(null).setSubmittedAt(now).build())
                .build();
        long began = System.nanoTime();
        try (KafkaProducer<String, JobRequest> producer = kafka.eventProducer("allot-smoke", Map.of())) {
            producer.send(new ProducerRecord<>(topic.name(), "smoke", sent)).get();
        }
        try (KafkaConsumer<byte[], byte[]> consumer = kafka.consumer("allot-smoke",
                Map.of(ConsumerConfig.GROUP_ID_CONFIG, "smoke-" + UUID.randomUUID()))) {
            List<ConsumerRecord<byte[], byte[]>> records =
                    AllotInfrastructure.pollUntil(consumer, topic.name(), 1, Duration.ofSeconds(30));
            if (records.isEmpty()) {
                throw new IllegalStateException("the smoke event did not come back within 30 s");
            }
            byte[] bytes = records.get(0).value();
            int id = ByteBuffer.wrap(bytes, 1, 4).getInt();
            if (bytes[0] != 0) {
                throw new IllegalStateException("magic byte is " + bytes[0] + ", expected 0");
            }
            var schema = new ConfluentCompatClient(kafka.registryUrl() + "/apis/ccompat/v7").schemaById(id);
            if (!schema.equals(JobRequest.getClassSchema())) {
                throw new IllegalStateException("schema " + id + " from the registry differs from JobRequest's");
            }
            System.out.printf("smoke ok: produced and consumed %s on %s in %d ms; %d bytes, magic 0, schema id %d"
                            + " resolves to %s through /apis/ccompat/v7%n", sent.getPayload().getClass().getSimpleName(),
                    topic.name(), (System.nanoTime() - began) / 1_000_000, bytes.length, id, schema.getFullName());
        }
    }
}
