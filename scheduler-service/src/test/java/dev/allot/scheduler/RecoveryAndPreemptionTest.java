package dev.allot.scheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.allot.core.ReplicaPlacement;
import dev.allot.schemas.JobEvent;
import dev.allot.schemas.JobPlaced;
import dev.allot.schemas.JobPreempted;
import dev.allot.schemas.NodeCommand;
import dev.allot.schemas.PreemptionReason;
import dev.allot.schemas.StartJob;
import dev.allot.schemas.StopJob;
import dev.allot.schemas.StopReason;
import dev.allot.schemas.catalogue.Topics;
import dev.allot.testsupport.AllotInfraTestResource;
import dev.allot.testsupport.Tail;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import dev.allot.testsupport.AllotInfrastructure;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The loop as a plain object (beside the app's own, which schedules another cluster) on the real
 * broker and registry, each test on a cluster of its own:
 * preemption end to end, restart without double placement, a second instance standing by.
 */
@QuarkusTest
@TestProfile(ItCluster.class)
@QuarkusTestResource(value = AllotInfraTestResource.class, restrictToAnnotatedClass = false)
class RecoveryAndPreemptionTest {

    static final Duration WAIT = Duration.ofSeconds(30);

    AllotInfrastructure infra;
    KafkaProducer<String, SpecificRecord> producer;
    Events events;
    Tail<JobEvent> jobEvents;
    Tail<NodeCommand> commands;
    String team;
    String otherTeam;

    @BeforeEach
    void given_a_cluster_of_our_own() {
        // The same JVM-wide broker and registry as the Quarkus test resource (same class loader).
        this.infra = AllotInfrastructure.shared();
        producer = infra.producer();
        events = new Events(producer, Events.id("it"));
        jobEvents = new Tail<>(infra, Topics.JOB_EVENTS);
        commands = new Tail<>(infra, Topics.NODE_COMMANDS);
        String root = Events.id("org");
        team = root + "/a";
        otherTeam = root + "/b";
        events.budget(root, null, 1);
        events.budget(team, root, 1);
        events.budget(otherTeam, root, 1);
    }

    @AfterEach
    void close() throws Exception {
        jobEvents.close();
        commands.close();
        producer.close();
    }

    SchedulerLoop loop() {
        SchedulerLoop loop = new SchedulerLoop(Settings.of(infra.bootstrapServers(), infra.registryUrl(),
                events.cluster).withTick(Duration.ofMillis(200)).withLostAfter(Duration.ofMinutes(10))
                .withStandby(new Settings.Standby(Duration.ofSeconds(6), Duration.ofMinutes(5))), null);
        loop.start();
        await().atMost(WAIT).until(() -> loop.status().phase() == SchedulerLoop.Phase.RUNNING);
        return loop;
    }

    List<StartJob> startsOf(String jobId) {
        return commands.records().stream().filter(r -> Events.startFor(r, jobId))
                .map(r -> (StartJob) r.value().getPayload()).toList();
    }

    List<StopJob> stopsOf(String jobId) {
        return commands.records().stream().filter(r -> Events.stopFor(r, jobId))
                .map(r -> (StopJob) r.value().getPayload()).toList();
    }

    List<Object> payloadsOf(String jobId) {
        return jobEvents.values(r -> r.key().equals(jobId)).stream().map(JobEvent::getPayload).toList();
    }

    @Test
    void given_an_unallocated_job_holding_the_cluster_when_an_allocated_job_arrives_then_it_is_stopped_with_who_and_why_and_the_newcomer_placed() {
        SchedulerLoop loop = loop();
        try {
            events.node(events.cluster + "-n1", 4);
            await().atMost(WAIT).until(() -> loop.status().nodes() == 1);
            String free = events.submit(team, 1, 4, 0);
            await().atMost(WAIT).untilAsserted(() -> assertThat(startsOf(free)).hasSize(1));

            String paid = events.submit(otherTeam, 1, 4, 600);

            await().atMost(WAIT).untilAsserted(() -> {
                assertThat(stopsOf(free)).singleElement().satisfies(s -> {
                    assertThat(s.getReason()).isEqualTo(StopReason.PREEMPTED);
                    assertThat(s.getNodeId()).isEqualTo(events.cluster + "-n1");
                });
                assertThat(payloadsOf(free)).filteredOn(JobPreempted.class::isInstance).singleElement()
                        .satisfies(p -> {
                            JobPreempted preempted = (JobPreempted) p;
                            assertThat(preempted.getPreemptorJobId()).isEqualTo(paid);
                            assertThat(preempted.getPreemptorAccount()).isEqualTo(otherTeam);
                            assertThat(preempted.getReason()).isEqualTo(PreemptionReason.UNALLOCATED_DISPLACED);
                            assertThat(preempted.getExplanation()).isNotBlank();
                            assertThat(preempted.getRequeue()).isTrue();
                        });
                assertThat(startsOf(paid)).singleElement()
                        .satisfies(s -> assertThat(s.getGpuIndices()).hasSize(4));
            });
            // The stop is carried out before the preemptor's start, in the same transaction.
            List<String> order = commands.records().stream()
                    .filter(r -> Events.stopFor(r, free) || Events.startFor(r, paid))
                    .map(r -> r.value().getPayload().getClass().getSimpleName()).toList();
            assertThat(order).containsExactly("StopJob", "StartJob");

            // bin/allot audit: replaying the log through the same code re-derives the victim's decisions
            java.io.ByteArrayOutputStream printed = new java.io.ByteArrayOutputStream();
            int rc = Audit.run(infra.bootstrapServers(), infra.registryUrl(), free, null,
                    new java.io.PrintStream(printed, true));
            assertThat(printed.toString()).as(printed.toString()).contains("on cluster " + events.cluster)
                    .containsPattern("JobPlaced +RUNNING +same +" + events.cluster + "-n1 GPUs \\[0, 1, 2, 3\\]")
                    .containsPattern("JobPreempted +WAITING +same +by " + paid)
                    .contains("every decision re-derived from the log");
            assertThat(rc).isZero();
        } finally {
            loop.stop();
        }
    }

    @Test
    void given_running_jobs_when_the_loop_restarts_then_the_rebuilt_projection_knows_them_and_places_nothing_twice() {
        SchedulerLoop first = loop();
        String a;
        String b;
        Map<String, List<ReplicaPlacement>> before;
        try {
            events.node(events.cluster + "-n1", 8);
            events.node(events.cluster + "-n2", 8);
            await().atMost(WAIT).until(() -> first.status().nodes() == 2);
            a = events.submit(team, 2, 3, 600);
            b = events.submit(otherTeam, 1, 4, 600);
            String finalA = a;
            String finalB = b;
            await().atMost(WAIT).untilAsserted(() -> {
                assertThat(startsOf(finalA)).hasSize(2);
                assertThat(startsOf(finalB)).hasSize(1);
            });
            await().atMost(WAIT).until(() -> first.status().running() == 2);
            before = first.status().runningJobs();
        } finally {
            first.stop();
        }
        // as on a cluster that has run a while: every input partition has a committed offset (those the first
        // instance never read from get 0, which is exact)
        everyInputPartitionCommitted("allot-scheduler-" + events.cluster);

        SchedulerLoop second = loop();
        try {
            assertThat(second.status().rebuiltFromRecords()).isPositive();
            assertThat(second.status().runningJobs()).isEqualTo(before);
            // 16 GPUs, 10 held (3+3 and 4): 5 free on one node, 1 on the other. Jobs of 5 and 1 fit only there.
            String c = events.submit(team, 1, 5, 600);
            String d = events.submit(otherTeam, 1, 1, 600);
            await().atMost(WAIT).untilAsserted(() -> {
                assertThat(startsOf(c)).hasSize(1);
                assertThat(startsOf(d)).hasSize(1);
            });
            Set<String> held = new HashSet<>();
            for (String job : List.of(a, b, c, d)) {
                for (StartJob s : startsOf(job)) {
                    for (int gpu : s.getGpuIndices()) {
                        assertThat(held.add(s.getNodeId() + ":" + gpu)).as("GPU %s:%d held twice", s.getNodeId(), gpu)
                                .isTrue();
                    }
                }
            }
            assertThat(held).hasSize(16);
            for (String job : List.of(a, b)) {
                assertThat(payloadsOf(job)).filteredOn(JobPlaced.class::isInstance).as(job).hasSize(1);
                // the inputs resume at the committed offsets: the submissions are not read (and refused) again
                assertThat(payloadsOf(job)).as(job).noneMatch(dev.allot.schemas.JobRejected.class::isInstance);
                assertThat(startsOf(job)).as(job).hasSize(job.equals(a) ? 2 : 1);
            }
        } finally {
            second.stop();
        }
    }

    void everyInputPartitionCommitted(String group) {
        try (org.apache.kafka.clients.admin.Admin admin = infra.admin()) {
            Map<org.apache.kafka.common.TopicPartition, org.apache.kafka.clients.consumer.OffsetAndMetadata> committed =
                    admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get();
            Map<org.apache.kafka.common.TopicPartition, org.apache.kafka.clients.consumer.OffsetAndMetadata> zero =
                    new java.util.HashMap<>();
            for (var topic : InputReader.INPUT_TOPICS) {
                for (var p : admin.describeTopics(List.of(topic.name())).allTopicNames().get().get(topic.name())
                        .partitions()) {
                    var tp = new org.apache.kafka.common.TopicPartition(topic.name(), p.partition());
                    if (committed.get(tp) == null) {
                        zero.put(tp, new org.apache.kafka.clients.consumer.OffsetAndMetadata(0));
                    }
                }
            }
            admin.alterConsumerGroupOffsets(group, zero).all().get();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void given_running_and_waiting_jobs_when_the_scheduler_crashes_mid_step_then_a_new_one_continues_from_the_log() {
        SchedulerLoop first = loop();
        String node = events.cluster + "-n1";
        events.node(node, 8);
        await().atMost(WAIT).until(() -> first.status().nodes() == 1);
        String running = events.submit(team, 1, 6, 600);
        await().atMost(WAIT).untilAsserted(() -> assertThat(startsOf(running)).hasSize(1));
        String waitingOld = events.submit(team, 1, 6, 600); // 2 GPUs free: it waits
        await().atMost(WAIT).until(() -> first.status().waiting() == 1);
        List<ReplicaPlacement> placement = first.status().runningJobs().get(running);

        // when it crashes in the middle of a step (records sent, transaction neither committed nor aborted)
        first.halt();
        // (of the other team, which ranks first: it takes the 2 free GPUs before the waiting job is looked at;
        // allocated, since unallocated work keeps off a node allocated work waits for)
        String pending = events.submit(otherTeam, 1, 2, 60);
        await().atMost(WAIT).until(first::ended);

        SchedulerLoop second = loop();
        try {
            // then the new instance, rebuilt from the public topics, runs the same job on the same GPUs
            assertThat(second.status().rebuiltFromRecords()).isPositive();
            assertThat(second.status().runningJobs()).containsEntry(running, placement);
            // the step the crash cut off is taken once, on the free GPUs
            await().atMost(WAIT).untilAsserted(() -> assertThat(startsOf(pending)).singleElement()
                    .satisfies(s -> assertThat(s.getGpuIndices()).containsExactly(6, 7)));
            // a waiting job keeps its queue time: one submitted after the restart stays behind it
            String waitingNew = events.submit(team, 1, 6, 600);
            await().atMost(WAIT).until(() -> second.status().waiting() == 2);
            events.exited(running, node, 0, 0);
            await().atMost(WAIT).untilAsserted(() -> assertThat(startsOf(waitingOld))
                    .as("%s; events of the running job %s; of the new one %s", second.status(), payloadsOf(running),
                            payloadsOf(waitingNew)).hasSize(1));
            assertThat(startsOf(waitingNew)).isEmpty();
            assertThat(payloadsOf(running)).filteredOn(dev.allot.schemas.JobCompleted.class::isInstance).hasSize(1);
            for (String job : List.of(running, pending, waitingOld)) {
                assertThat(payloadsOf(job)).filteredOn(JobPlaced.class::isInstance).as(job).hasSize(1);
                assertThat(startsOf(job)).as(job).hasSize(1);
            }
            assertThat(startsOf(waitingOld).get(0).getGpuIndices()).doesNotContainAnyElementsOf(List.of(6, 7));
        } finally {
            second.stop();
        }
    }

    @Test
    void given_a_job_that_ended_while_no_instance_was_active_when_a_new_one_rebuilds_then_it_reads_the_exit_before_deciding() {
        SchedulerLoop first = loop();
        String node = events.cluster + "-n1";
        String ended;
        String waiting;
        long protectedUntil;
        try {
            events.node(node, 10);
            await().atMost(WAIT).until(() -> first.status().nodes() == 1);
            // 9 GPUs: not of the debug shape (at most 8), so past its 10 s of protection it may be displaced
            ended = events.submit(team, 1, 9, 10);
            String finalEnded = ended;
            await().atMost(WAIT).untilAsserted(() -> {
                assertThat(startsOf(finalEnded)).hasSize(1);
                assertThat(payloadsOf(finalEnded)).anyMatch(JobPlaced.class::isInstance);
            });
            protectedUntil = payloadsOf(ended).stream().filter(JobPlaced.class::isInstance)
                    .map(p -> ((JobPlaced) p).getProtectedUntil().toEpochMilli()).findFirst().orElseThrow();
            waiting = events.submit(otherTeam, 1, 9, 600); // the other team, below its entitlement: it may preempt
            await().atMost(WAIT).until(() -> first.status().waiting() == 1);
        } finally {
            first.stop();
        }
        assertThat(payloadsOf(ended)).as("stopped within the protection").noneMatch(JobPreempted.class::isInstance);
        // while no instance is active the job checkpoints often, then ends (its agent's reports are past the
        // committed input offsets, so the rebuild does not apply them: the new instance reads them live, in
        // several polls, the exit last), and its protection lapses
        for (int i = 0; i < 5_000; i++) {
            producer.send(new org.apache.kafka.clients.producer.ProducerRecord<>(Topics.JOB_EVENTS.name(), ended,
                    new JobEvent(java.util.UUID.randomUUID().toString(), java.time.Instant.now(), ended, null,
                            new dev.allot.schemas.JobCheckpointed(node, 0, null))));
        }
        producer.flush();
        events.exited(ended, node, 0, 0);
        await().atMost(WAIT).until(() -> System.currentTimeMillis() > protectedUntil + 500);

        SchedulerLoop second = loop();
        try {
            String finalWaiting = waiting;
            await().atMost(WAIT).untilAsserted(() -> assertThat(startsOf(finalWaiting)).hasSize(1));
            // the first pass came after the exit was read: the ended job completed, nothing was preempted
            assertThat(payloadsOf(ended)).as("events of %s", ended).noneMatch(JobPreempted.class::isInstance)
                    .filteredOn(dev.allot.schemas.JobCompleted.class::isInstance).hasSize(1);
            assertThat(stopsOf(ended)).isEmpty();
            assertThat(payloadsOf(ended)).filteredOn(JobPlaced.class::isInstance).hasSize(1);
        } finally {
            second.stop();
        }
    }

    @Test
    void given_a_running_instance_when_a_second_starts_for_the_same_cluster_then_it_stands_by_and_the_first_keeps_scheduling() {
        SchedulerLoop first = loop();
        SchedulerLoop second = null;
        try {
            events.node(events.cluster + "-n1", 2);
            await().atMost(WAIT).until(() -> first.status().nodes() == 1);
            second = new SchedulerLoop(Settings.of(infra.bootstrapServers(), infra.registryUrl(), events.cluster), null);
            second.start();
            SchedulerLoop standby = second;
            await().atMost(WAIT).until(() -> standby.status().phase() == SchedulerLoop.Phase.STANDBY);
            String job = events.submit(team, 1, 1, 0);
            await().atMost(WAIT).untilAsserted(() -> {
                assertThat(startsOf(job)).hasSize(1);
                assertThat(first.status().running()).isEqualTo(1);
            });
            assertThat(first.status().phase()).isEqualTo(SchedulerLoop.Phase.RUNNING);
            assertThat(standby.status().phase()).isEqualTo(SchedulerLoop.Phase.STANDBY);
            assertThat(standby.fencings()).isZero();
            assertThat(first.fencings()).isZero();
        } finally {
            first.stop();
            if (second != null) {
                second.stop();
            }
        }
    }

    @Test
    void given_budgets_nodes_and_a_submission_already_in_the_log_when_the_scheduler_first_starts_then_the_job_is_placed_not_rejected() {
        // Everything happened before this cluster's scheduler ever ran; the submission comes first in time
        // order on another topic than the budgets and nodes it needs.
        String late = Events.id("late");
        events.budget(late, null, 1);
        events.budget(late + "/team", late, 1);
        events.node(events.cluster + "-n1", 4);
        String job = events.submit(late + "/team", 1, 4, 60);

        SchedulerLoop loop = loop();
        try {
            await().atMost(WAIT).untilAsserted(() -> assertThat(startsOf(job)).singleElement()
                    .satisfies(s -> assertThat(s.getNodeId()).isEqualTo(events.cluster + "-n1")));
            assertThat(payloadsOf(job)).noneMatch(p -> p instanceof dev.allot.schemas.JobRejected);
        } finally {
            loop.stop();
        }
    }
}
