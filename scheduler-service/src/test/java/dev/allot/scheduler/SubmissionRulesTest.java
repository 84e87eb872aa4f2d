package dev.allot.scheduler;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.core.Scheduler;
import dev.allot.core.policy.BudgetView;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The submission rules on their own: first failure wins, the cluster's shape bounds a job. */
class SubmissionRulesTest {

    static final SubmissionRules.ClusterShape TWO_NODES = new SubmissionRules.ClusterShape(2, 8, 12);

    final SubmissionRules rules = new SubmissionRules("unit", 8 * 3600_000L);
    final BudgetView budgets = budgets();

    static BudgetView budgets() {
        Scheduler core = new Scheduler();
        core.defineBudget(0, "lab", null, 1);
        core.defineBudget(0, "lab/a", "lab", 1);
        return core.budgets();
    }

    static Input.Submit job(String budget, int replicas, int gpus, long minRuntimeSeconds, List<String> command) {
        return new Input.Submit(1, "j1", budget, "me", "unit", replicas, gpus, minRuntimeSeconds, true, 0, command,
                Map.of(), null, 1);
    }

    static Input.Submit job(int replicas, int gpus) {
        return job("lab/a", replicas, gpus, 60, List.of("run"));
    }

    @Test
    void given_a_job_that_fits_the_cluster_when_checked_then_no_rejection() {
        assertThat(rules.check(job(2, 6), budgets, TWO_NODES)).isNull();
    }

    @Test
    void given_several_broken_rules_when_checked_then_the_first_in_rule_order_is_named() {
        SubmissionRules.Rejection why = rules.check(job("lab", 0, 0, -1, List.of()), budgets, TWO_NODES);

        assertThat(why.field()).isEqualTo("budget");
        assertThat(why.reason()).isEqualTo("account 'lab' is not a leaf of the budget tree (children: lab/a)");
    }

    @Test
    void given_each_rule_broken_alone_when_checked_then_its_field_is_named() {
        assertThat(rules.check(job("nope", 1, 1, 0, List.of("run")), budgets, TWO_NODES).field()).isEqualTo("budget");
        assertThat(rules.check(job(0, 1), budgets, TWO_NODES).field()).isEqualTo("replicas");
        assertThat(rules.check(job(1, 0), budgets, TWO_NODES).field()).isEqualTo("gpusPerReplica");
        assertThat(rules.check(job("lab/a", 1, 1, 8 * 3600 + 1, List.of("run")), budgets, TWO_NODES).reason())
                .isEqualTo("minRuntimeSeconds 28801 exceeds the maximum of 28800 s (8.0 h)");
        assertThat(rules.check(job("lab/a", 1, 1, 0, List.of(" ")), budgets, TWO_NODES).field()).isEqualTo("command");
        assertThat(rules.check(job(1, 9), budgets, TWO_NODES).reason())
                .isEqualTo("gpusPerReplica 9 exceeds the largest node of cluster 'unit' (8 GPUs)");
        assertThat(rules.check(job(3, 1), budgets, TWO_NODES).field()).isEqualTo("replicas");
        assertThat(rules.check(job(2, 7), budgets, TWO_NODES).reason())
                .isEqualTo("the job asks for 14 GPUs, cluster 'unit' has 12");
    }
}
