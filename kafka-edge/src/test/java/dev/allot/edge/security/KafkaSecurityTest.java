package dev.allot.edge.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.allot.edge.KafkaClients;
import dev.allot.schemas.catalogue.Topics;
import java.io.StringReader;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.resource.ResourceType;
import org.junit.jupiter.api.Test;

/** How a service's configuration becomes its clients' authentication, and the ACL table's shape. */
class KafkaSecurityTest {

    @Test
    void givenNoSecurityConfigured_thenPlaintext_andNoSaslSettingsReachTheClients() {
        KafkaSecurity none = KafkaSecurity.from(key -> Optional.empty());

        assertThat(none).isEqualTo(KafkaSecurity.PLAINTEXT);
        assertThat(new KafkaClients("127.0.0.1:9092", "http://r", none).producerConfig("p"))
                .containsEntry("security.protocol", "PLAINTEXT").doesNotContainKeys("sasl.mechanism", "sasl.jaas.config");
    }

    @Test
    void givenAServicesScramConfig_thenEveryClientKindCarriesIt() {
        Map<String, String> config = Map.of("kafka.security.protocol", "SASL_PLAINTEXT",
                "kafka.sasl.jaas.config", KafkaSecurity.scram("budget-service", "s3cret").jaasConfig());
        KafkaSecurity security = KafkaSecurity.from(key -> Optional.ofNullable(config.get(key)));
        KafkaClients clients = new KafkaClients("127.0.0.1:9092", "http://r", security);

        assertThat(security.mechanism()).isEqualTo("SCRAM-SHA-512");
        for (Map<?, ?> c : new Map<?, ?>[] {clients.producerConfig("p"), clients.consumerConfig("c"), clients.adminConfig(),
                clients.streamsConfig("app", Map.of())}) {
            assertThat(c.get("security.protocol")).isEqualTo("SASL_PLAINTEXT");
            assertThat(c.get("sasl.mechanism")).isEqualTo("SCRAM-SHA-512");
            assertThat(String.valueOf(c.get("sasl.jaas.config"))).contains("username=\"budget-service\"")
                    .contains("password=\"s3cret\"");
        }
        assertThat(security.toString()).doesNotContain("s3cret");
    }

    @Test
    void givenSaslWithoutAJaasConfig_thenItSaysWhichKeyIsMissing() {
        assertThatThrownBy(() -> KafkaSecurity.from(key -> key.equals("kafka.security.protocol")
                ? Optional.of("SASL_PLAINTEXT") : Optional.empty()))
                .hasMessageContaining("kafka.sasl.jaas.config");
    }

    @Test
    void givenTheClientPropertiesItPrints_whenReadBack_thenTheSameSecurity() throws Exception {
        KafkaSecurity analyst = KafkaSecurity.scram("analyst", "p\"w\\d");
        Properties read = new Properties();
        read.load(new StringReader(analyst.clientProperties("127.0.0.1:9092")));

        assertThat(read.getProperty("bootstrap.servers")).isEqualTo("127.0.0.1:9092");
        assertThat(KafkaSecurity.fromClientProperties(read)).isEqualTo(analyst);
    }

    @Test
    void theAclTableGivesTheIssuesWrites_andNobodyButTheBudgetServiceWritesBudgets() {
        assertThat(KafkaAccess.BUDGET_SERVICE.writes()).contains(Topics.BUDGETS, Topics.JOB_REQUESTS)
                .doesNotContain(Topics.NODE_COMMANDS);
        assertThat(KafkaAccess.NODE_AGENT.writes()).containsExactlyInAnyOrder(Topics.NODE_STATUS, Topics.JOB_EVENTS,
                Topics.USAGE, Topics.DEAD_LETTERS);
        assertThat(KafkaAccess.NODE_AGENT.reads()).containsExactly(Topics.NODE_COMMANDS);
        assertThat(KafkaAccess.ANALYST.writes()).isEmpty();
        for (KafkaAccess principal : KafkaAccess.values()) {
            if (principal != KafkaAccess.ANALYST) {
                assertThat(principal.writes()).as(principal.principal()).contains(Topics.DEAD_LETTERS);
            }
            if (principal != KafkaAccess.BUDGET_SERVICE) {
                assertThat(principal.writes()).as(principal.principal()).doesNotContain(Topics.BUDGETS);
            }
        }
        // only the accounting-service creates topics (its Streams internals), under its application id
        assertThat(KafkaAccess.all()).filteredOn(b -> b.pattern().resourceType() == ResourceType.TOPIC
                && b.entry().operation() == AclOperation.ALL)
                .allSatisfy(b -> assertThat(b.pattern().name()).isEqualTo("allot-accounting"));
        assertThat(KafkaAccess.users()).startsWith(KafkaAccess.ADMIN).hasSize(KafkaAccess.values().length + 1);
    }
}
