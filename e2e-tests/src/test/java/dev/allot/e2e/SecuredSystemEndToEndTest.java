package dev.allot.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.allot.edge.security.KafkaAccess;
import dev.allot.schemas.BudgetUsage;
import dev.allot.schemas.DeadLetter;
import dev.allot.schemas.catalogue.Topics;
import dev.allot.testsupport.AllotInfra;
import dev.allot.testsupport.AllotInfrastructure;
import dev.allot.testsupport.Tail;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The whole system on the broker of {@code bin/allot up}: SASL/SCRAM, the StandardAuthorizer, no access
 * without an ACL, each service as its own principal with exactly the ACLs of {@link KafkaAccess}. A job
 * submitted through the API runs, completes and its usage is booked: no service lacks an ACL it needs. (Who is
 * refused what is test-support's SecuredBrokerTest, on the same broker recipe.)
 */
@AllotInfra(secured = true)
class SecuredSystemEndToEndTest {

    static final Duration PATIENCE = Duration.ofSeconds(120);

    @Test
    void givenEveryServiceAsItsOwnPrincipal_whenAJobIsSubmitted_thenItCompletesAndItsUsageIsBooked(
            AllotInfrastructure infra) throws Exception {
        assertThat(infra.isSecured()).isTrue();
        String cluster = "sasl-" + UUID.randomUUID().toString().substring(0, 6);
        String lab = "lab" + cluster.substring(5);
        try (AllotSystem system = AllotSystem.start(infra, cluster, 1, 2);
             Tail<BudgetUsage> usage = new Tail<>(infra, Topics.BUDGET_USAGE);
             Tail<DeadLetter> deadLetters = new Tail<>(infra, Topics.DEAD_LETTERS)) {
            // the first write waits for the budget-service's first producer and projection: retried on a busy machine
            await().atMost(PATIENCE).ignoreExceptions().until(() -> system.api.putBudget(lab, 1).status(),
                    status -> status >= 200 && status <= 204);
            assertThat(system.api.putBudget(lab + "/team", 1).status()).isBetween(200, 204);

            // protected for 30 s (a job with no protection runs unallocated, and is booked as such)
            String id = system.api.submit(Map.of("budget", lab + "/team", "cluster", cluster, "replicas", 1,
                    "gpusPerReplica", 1, "minRuntimeSeconds", 30, "resumable", false,
                    "command", List.of("sleep", "4")));

            await().atMost(PATIENCE).until(() -> system.api.state(id), s -> s.equals("RUNNING") || s.equals("COMPLETED"));
            await().atMost(PATIENCE).until(() -> system.api.state(id), "COMPLETED"::equals);
            assertThat(system.api.job(id).toString()).contains("JobPlaced").contains("JobStarted")
                    .contains("JobCompleted");
            String key = Topics.accountKey(cluster, lab + "/team");
            await().atMost(PATIENCE).untilAsserted(() -> assertThat(usage.values(r -> key.equals(r.key())))
                    .as("budget-usage of %s (written by the accounting-service's principal)", key)
                    .anySatisfy(u -> assertThat(u.getChargedGpuSeconds()).isPositive()));
            // nothing of this cluster's was refused and dead-lettered on the way
            assertThat(deadLetters.values(r -> r.value().getReason().contains(cluster)
                    || r.value().getReason().toLowerCase().contains("authoriz"))).isEmpty();
            assertThat(system.budget.isAlive() && system.scheduler.isAlive() && system.accounting.isAlive()
                    && system.agent.isAlive()).isTrue();
        }
    }
}
