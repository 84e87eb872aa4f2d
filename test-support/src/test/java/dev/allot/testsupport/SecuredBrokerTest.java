package dev.allot.testsupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.allot.edge.KafkaClients;
import dev.allot.edge.security.KafkaAccess;
import dev.allot.edge.security.KafkaSecurity;
import dev.allot.schemas.catalogue.Topics;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.TransactionalIdAuthorizationException;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.junit.jupiter.api.Test;

/**
 * The broker of {@code bin/allot infra up} with SASL/SCRAM and the ACL table: who is refused what. (The
 * whole system running on it is e2e-tests' SecuredSystemEndToEndTest.)
 */
@AllotInfra(secured = true)
class SecuredBrokerTest {

    private static final Duration SHORT = Duration.ofSeconds(10);

    @Test
    void givenNoCredentials_whenAClientConnects_thenItGetsNoMetadata(AllotInfrastructure infra) {
        // a plaintext client on the SASL listener: the broker drops the connection, nothing is ever answered
        try (Admin anonymous = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, infra.bootstrapServers(),
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 3000, AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 2000))) {
            assertThatThrownBy(() -> anonymous.listTopics().names().get()).isInstanceOf(ExecutionException.class)
                    .hasCauseInstanceOf(org.apache.kafka.common.errors.TimeoutException.class);
        }
    }

    @Test
    void givenAWrongPassword_whenAClientConnects_thenAuthenticationFails(AllotInfrastructure infra) {
        KafkaClients wrong = new KafkaClients(infra.bootstrapServers(), infra.registryUrl(),
                KafkaSecurity.scram(KafkaAccess.BUDGET_SERVICE.principal(), "not-the-password"));
        try (Admin admin = wrong.admin()) {
            assertThatThrownBy(() -> admin.listTopics().names().get()).hasCauseInstanceOf(SaslAuthenticationException.class);
        }
    }

    @Test
    void givenTheBudgetServicePrincipal_whenItWritesNodeCommands_thenTheBrokerRefusesIt(AllotInfrastructure infra) {
        try (KafkaProducer<String, byte[]> producer = producerAs(infra, KafkaAccess.BUDGET_SERVICE)) {
            assertThatThrownBy(() -> producer.send(record(Topics.NODE_COMMANDS.name())).get())
                    .hasCauseInstanceOf(TopicAuthorizationException.class);
        }
    }

    @Test
    void givenTheNodeAgentPrincipal_whenItWritesBudgets_thenTheBrokerRefusesIt(AllotInfrastructure infra) {
        try (KafkaProducer<String, byte[]> producer = producerAs(infra, KafkaAccess.NODE_AGENT)) {
            assertThatThrownBy(() -> producer.send(record(Topics.BUDGETS.name())).get())
                    .hasCauseInstanceOf(TopicAuthorizationException.class);
        }
    }

    @Test
    void givenEachPrincipal_whenItWritesItsOwnTopics_thenTheBrokerTakesThem(AllotInfrastructure infra) throws Exception {
        for (KafkaAccess principal : KafkaAccess.values()) {
            try (KafkaProducer<String, byte[]> producer = producerAs(infra, principal)) {
                for (var topic : principal.writes()) {
                    assertThat(producer.send(record(topic.name())).get().topic()).as(principal + " -> " + topic.name())
                            .isEqualTo(topic.name());
                }
            }
        }
    }

    @Test
    void givenTheAnalyst_whenItReadsEveryTopic_thenItMay_butItWritesNone(AllotInfrastructure infra) {
        KafkaClients analyst = infra.clientsAs(KafkaAccess.ANALYST.principal());
        try (KafkaConsumer<byte[], byte[]> consumer = analyst.consumer("analyst-test",
                Map.of(ConsumerConfig.GROUP_ID_CONFIG, "analyst-" + UUID.randomUUID()))) {
            Set<String> visible = consumer.listTopics(SHORT).keySet();
            assertThat(visible).containsAll(Topics.ALL.stream().map(t -> t.name()).toList());
            consumer.subscribe(List.of(Topics.BUDGETS.name()));
            consumer.poll(Duration.ofSeconds(2)); // joins its group and fetches: no authorization error
        }
        try (KafkaProducer<String, byte[]> producer = producerAs(infra, KafkaAccess.ANALYST)) {
            // refused as soon as its idempotent producer asks for an id: it may write no topic at all
            assertThatThrownBy(() -> producer.send(record(Topics.JOB_REQUESTS.name())).get())
                    .hasCauseInstanceOf(AuthorizationException.class);
        }
    }

    @Test
    void givenTheNodeAgent_whenItTakesTheSchedulersTransactionalId_thenTheBrokerRefusesIt(AllotInfrastructure infra) {
        KafkaClients agent = infra.clientsAs(KafkaAccess.NODE_AGENT.principal());
        try (KafkaProducer<String, byte[]> producer = agent.transactionalProducer("impostor", "allot-scheduler-local",
                Map.of(ProducerConfig.MAX_BLOCK_MS_CONFIG, 10_000))) {
            assertThatThrownBy(producer::initTransactions).isInstanceOf(TransactionalIdAuthorizationException.class);
        }
    }

    @Test
    void givenAServicePrincipal_whenItCreatesATopic_thenTheBrokerRefusesIt(AllotInfrastructure infra) {
        try (Admin admin = infra.clientsAs(KafkaAccess.SCHEDULER_SERVICE.principal()).admin()) {
            assertThatThrownBy(() -> admin.createTopics(List.of(new NewTopic("evil-" + UUID.randomUUID(), 1, (short) 1)))
                    .all().get()).hasCauseInstanceOf(org.apache.kafka.common.errors.TopicAuthorizationException.class);
        }
    }

    @Test
    void theBrokerHoldsExactlyTheAclTable(AllotInfrastructure infra) throws Exception {
        try (Admin admin = infra.admin()) {
            assertThat(admin.describeAcls(AclBindingFilter.ANY).values().get())
                    .containsExactlyInAnyOrderElementsOf(KafkaAccess.all());
        }
    }

    @Test
    void theArchitectureDocShowsTheAclTableAsTheCodeHasIt() throws Exception {
        String doc = Files.readString(RepositoryRoot.get().resolve("docs/architecture.md"), StandardCharsets.UTF_8);
        assertThat(doc).contains(KafkaAccess.markdownTable());
    }

    private static KafkaProducer<String, byte[]> producerAs(AllotInfrastructure infra, KafkaAccess principal) {
        Map<String, Object> config = infra.clientsAs(principal.principal()).producerConfig("test-" + principal.principal());
        config.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 10_000);
        config.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 10_000);
        config.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000);
        return new KafkaProducer<>(config);
    }

    private static ProducerRecord<String, byte[]> record(String topic) {
        // not a catalogue event: the broker checks the ACL before anything reads the value
        return new ProducerRecord<>(topic, "acl-test", new byte[] {1});
    }

    @Test
    void givenTheBrokerOfBinAllot_whenItsCoordinatorsTopicExists_thenItRollsSmallSegments_evenWhereMadeWithTheDefault(
            AllotInfrastructure infra) throws Exception {
        try (Admin admin = infra.clientsAs(KafkaAccess.ADMIN).admin()) {
            // a group's first commit makes __consumer_offsets, with the broker's setting
            admin.alterConsumerGroupOffsets("segments-" + UUID.randomUUID(), Map.of(
                    new org.apache.kafka.common.TopicPartition(Topics.BUDGETS.name(), 0),
                    new org.apache.kafka.clients.consumer.OffsetAndMetadata(0))).all().get();
            assertThat(segmentBytes(admin, "__consumer_offsets")).isEqualTo(LocalBroker.COORDINATOR_SEGMENT_BYTES);

            // a broker prepared before the setting made it with Kafka's 100 MiB: the set-up of 'bin/allot up' mends it
            admin.incrementalAlterConfigs(Map.of(offsets(), List.of(new org.apache.kafka.clients.admin.AlterConfigOp(
                    new org.apache.kafka.clients.admin.ConfigEntry("segment.bytes", "104857600"),
                    org.apache.kafka.clients.admin.AlterConfigOp.OpType.SET)))).all().get();
            assertThat(segmentBytes(admin, "__consumer_offsets")).isEqualTo(104_857_600);
            LocalBroker.setUp(infra.bootstrapServers(), infra.security(KafkaAccess.ADMIN));
            assertThat(segmentBytes(admin, "__consumer_offsets")).isEqualTo(LocalBroker.COORDINATOR_SEGMENT_BYTES);
        }
    }

    private static org.apache.kafka.common.config.ConfigResource offsets() {
        return new org.apache.kafka.common.config.ConfigResource(org.apache.kafka.common.config.ConfigResource.Type.TOPIC,
                "__consumer_offsets");
    }

    private static int segmentBytes(Admin admin, String topic) throws Exception {
        var resource = new org.apache.kafka.common.config.ConfigResource(
                org.apache.kafka.common.config.ConfigResource.Type.TOPIC, topic);
        return Integer.parseInt(admin.describeConfigs(List.of(resource)).all().get().get(resource)
                .get("segment.bytes").value());
    }
}
