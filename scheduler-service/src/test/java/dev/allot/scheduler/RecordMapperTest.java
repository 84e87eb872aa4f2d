package dev.allot.scheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.allot.schemas.BudgetDefined;
import dev.allot.schemas.BudgetEvent;
import dev.allot.schemas.BudgetUsage;
import dev.allot.schemas.ChargeMode;
import dev.allot.schemas.JobCancelRequested;
import dev.allot.schemas.JobCheckpointed;
import dev.allot.schemas.JobEvent;
import dev.allot.schemas.JobExited;
import dev.allot.schemas.JobPlaced;
import dev.allot.schemas.JobRequest;
import dev.allot.schemas.JobStarted;
import dev.allot.schemas.JobSubmitted;
import dev.allot.schemas.NodeDrained;
import dev.allot.schemas.NodeHeartbeat;
import dev.allot.schemas.NodeRegistered;
import dev.allot.schemas.NodeStatus;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

/** Records to inputs, without Kafka: what each typed event means for one cluster's scheduler. */
class RecordMapperTest {

    static final String CLUSTER = "unit";
    static final long NOW = 5_000;
    static final Instant T = Instant.ofEpochMilli(1_000);

    final RecordMapper mapper = new RecordMapper(CLUSTER);
    final Predicate<String> knows = Set.of("known")::contains;

    static JobRequest submission(String cluster) {
        return new JobRequest("e1", T, new JobSubmitted("j1", "lab/a", "me", cluster, 2, 4, 60L, true, 1,
                List.of("train", "--fast"), Map.of("A", "1"), Map.of(), 600L, T, null));
    }

    static NodeStatus node(String nodeId, Object payload) {
        return new NodeStatus("e2", T, nodeId, payload);
    }

    static JobEvent report(String jobId, Object payload) {
        return new JobEvent("e3", T, jobId, null, payload);
    }

    @Test
    void given_secret_references_when_mapped_then_the_launch_env_carries_them_as_secret_entries_by_name_only() {
        JobSubmitted s = JobSubmitted.newBuilder((JobSubmitted) submission(CLUSTER).getPayload())
                .setSecretEnv(Map.of("WANDB_API_KEY", "wandb")).build();

        List<Input> inputs = mapper.map(new JobRequest("e1", T, s), NOW, knows);

        assertThat(((Input.Submit) inputs.get(0)).env())
                .isEqualTo(Map.of("A", "1", "secret:WANDB_API_KEY", "wandb"));
    }

    @Test
    void given_a_submission_for_our_cluster_when_mapped_then_one_submit_carrying_the_request_applied_now() {
        List<Input> inputs = mapper.map(submission(CLUSTER), NOW, knows);

        assertThat(inputs).containsExactly(new Input.Submit(NOW, "j1", "lab/a", "me", CLUSTER, 2, 4, 60, true, 1,
                List.of("train", "--fast"), Map.of("A", "1"), 600L, 1_000));
    }

    @Test
    void given_another_clusters_submission_or_node_when_mapped_then_nothing() {
        assertThat(mapper.map(submission("elsewhere"), NOW, knows)).isEmpty();
        assertThat(mapper.map(node("n1", new NodeRegistered("elsewhere", 8, "fake", 1L, "agent", null)), NOW, knows))
                .isEmpty();
        assertThat(mapper.map(node("n1", new NodeHeartbeat("elsewhere", 1L, List.of(), null)), NOW, knows))
                .isEmpty();
    }

    @Test
    void given_a_heartbeat_when_mapped_then_it_is_an_input_like_any_other_and_mapping_changes_nothing() {
        NodeStatus beat = node("n1", new NodeHeartbeat(CLUSTER, 3L, List.of("j1", "j2"), null));

        List<Input> first = mapper.map(beat, NOW, knows);
        List<Input> again = mapper.map(beat, NOW, knows);

        assertThat(first).containsExactly(new Input.Heartbeat(NOW, "n1", 3, List.of("j1", "j2")));
        assertThat(again).isEqualTo(first);
    }

    @Test
    void given_a_node_registration_when_mapped_then_register_with_the_agents_epoch() {
        assertThat(mapper.map(node("n1", new NodeRegistered(CLUSTER, 8, "fake", 4L, "agent", null)), NOW, knows))
                .containsExactly(new Input.RegisterNode(NOW, "n1", 8, 4));
    }

    @Test
    void given_records_that_break_a_rule_when_mapped_then_invalid_with_the_reason() {
        BudgetEvent noShare = new BudgetEvent("e4", T, new BudgetDefined("lab", null, 0.0, T, "ops", List.of(), List.of(), null));
        NodeStatus noGpus = node("n1", new NodeRegistered(CLUSTER, 0, "fake", 1L, "agent", null));

        assertThatThrownBy(() -> mapper.map(noShare, NOW, knows)).isInstanceOf(RecordMapper.InvalidRecord.class)
                .hasMessage("budget lab: share must be > 0, got 0.0");
        assertThatThrownBy(() -> mapper.map(noGpus, NOW, knows)).isInstanceOf(RecordMapper.InvalidRecord.class)
                .hasMessage("node n1 registered with 0 GPUs");
    }

    @Test
    void given_agent_reports_when_mapped_then_only_those_of_known_jobs_become_inputs() {
        assertThat(mapper.map(report("known", new JobStarted("n1", 1L, 0, 42L)), NOW, knows))
                .containsExactly(new Input.Started(NOW, "known", "n1"));
        assertThat(mapper.map(report("known", new JobCheckpointed("n1", 0, "/ckpt")), NOW, knows))
                .containsExactly(new Input.Checkpointed(NOW, "known", "n1"));
        assertThat(mapper.map(report("known", new JobExited("n1", 1, 3, false)), NOW, knows))
                .containsExactly(new Input.Exited(NOW, "known", "n1", 1, 3, false));
        assertThat(mapper.map(report("stranger", new JobExited("n1", 0, 0, false)), NOW, knows)).isEmpty();
    }

    @Test
    void given_our_own_decisions_read_back_when_mapped_then_nothing() {
        JobEvent placed = report("known", new JobPlaced(CLUSTER, "lab/a", List.of(), ChargeMode.ALLOCATED, T, 1, null, false));

        assertThat(mapper.map(placed, NOW, knows)).isEmpty();
        assertThat(mapper.map(node("n1", new NodeDrained(CLUSTER)), NOW, knows)).isEmpty();
    }

    @Test
    void given_cancels_when_mapped_then_only_a_known_job_is_cancelled() {
        JobRequest known = new JobRequest("e5", T, new JobCancelRequested("known", "alice", "oops", T));
        JobRequest unknown = new JobRequest("e6", T, new JobCancelRequested("other", "alice", null, T));

        assertThat(mapper.map(known, NOW, knows)).containsExactly(new Input.Cancel(NOW, "known", "alice", "oops"));
        assertThat(mapper.map(unknown, NOW, knows)).isEmpty();
    }

    @Test
    void given_usage_of_our_cluster_when_mapped_then_usage_of_the_account() {
        BudgetUsage usage = new BudgetUsage("lab/a", CLUSTER, T, T, 10.0, 2.0, 5.0, 2.0);

        assertThat(mapper.map(usage, NOW, knows)).containsExactly(new Input.Usage(NOW, "lab/a", 10.0, 2.0));
    }
}
