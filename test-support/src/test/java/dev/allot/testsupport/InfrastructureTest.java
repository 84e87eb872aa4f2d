package dev.allot.testsupport;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.schemas.JobRequest;
import dev.allot.schemas.JobSubmitted;
import dev.allot.schemas.catalogue.Topic;
import dev.allot.schemas.catalogue.Topics;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.config.ConfigResource;
import org.junit.jupiter.api.Test;

@AllotInfra
class InfrastructureTest {

    @Test
    void givenTheSharedInfrastructure_whenAnEventIsProduced_thenItIsConsumedBackEqual(AllotInfrastructure infra)
            throws Exception {
        JobRequest sent = Events.jobSubmitted("job-1", "lab/team-a", 2);
        Topic<String, JobRequest> topic = Events.sentToAFreshTopic(infra, "job-1", sent);

        List<ConsumerRecord<String, JobRequest>> received;
        try (KafkaConsumer<String, JobRequest> consumer = infra.consumer(JobRequest.class)) {
            received = AllotInfrastructure.pollUntil(consumer, topic.name(), 1, Duration.ofSeconds(30));
        }

        assertThat(received).hasSize(1);
        assertThat(received.get(0).key()).isEqualTo("job-1");
        assertThat(received.get(0).value()).isEqualTo(sent);
        assertThat(received.get(0).value().getPayload()).isInstanceOf(JobSubmitted.class);
    }

    @Test
    void everyCatalogueTopicExistsWithItsPartitionsAndCleanupPolicy(AllotInfrastructure infra) throws Exception {
        try (Admin admin = infra.admin()) {
            Set<String> names = admin.listTopics().names().get();
            for (Topic<String, ?> topic : Topics.ALL) {
                assertThat(names).contains(topic.name());
                TopicDescription description = admin.describeTopics(List.of(topic.name()))
                        .allTopicNames().get().get(topic.name());
                assertThat(description.partitions()).as(topic.name()).hasSize(topic.partitions());
                ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic.name());
                String policy = admin.describeConfigs(List.of(resource)).all().get().get(resource)
                        .get("cleanup.policy").value();
                assertThat(policy).as(topic.name()).isEqualTo(topic.cleanupPolicy().kafkaName());
            }
        }
    }

    @Test
    void givenAllotInfra_thenTheBrokerAndRegistryRunWhereItSays(AllotInfrastructure infra) {
        // in-jvm by default; testcontainers under 'bin/allot compose smoke' (-Dallot.infra=testcontainers)
        assertThat(infra.kind()).isEqualTo(System.getProperty(AllotInfrastructure.INFRA_PROPERTY, "in-jvm"));
    }

    @Test
    void theSharedInstanceIsStartedOnceAndReused(AllotInfrastructure infra) {
        assertThat(AllotInfrastructure.shared()).isSameAs(infra);
        assertThat(infra.bootstrapServers()).startsWith("localhost:").doesNotContain(",");
        assertThat(infra.registryUrl()).startsWith("http://127.0.0.1:");
        System.out.printf("allot test infrastructure started in %d ms%n", infra.startupTime().toMillis());
    }
}
