package dev.allot.scheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.allot.schemas.JobEvent;
import dev.allot.schemas.JobPlaced;
import dev.allot.schemas.NodeCommand;
import dev.allot.schemas.StartJob;
import dev.allot.schemas.catalogue.Topics;
import dev.allot.testsupport.AllotInfra;
import dev.allot.testsupport.AllotInfrastructure;
import dev.allot.testsupport.Tail;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Two scheduler instances for one cluster on the real broker and registry (README, "Standby"): one active,
 * the other standing by; the active one killed (its loop ends as kill -9 would: transaction left open, no
 * goodbye to the group) or frozen and resumed (a zombie). Every decision is checked in the log as a
 * read_committed reader sees it: no job placed twice, no GPU given twice.
 */
@AllotInfra
class StandbyFailoverTest {

    static final Duration WAIT = Duration.ofSeconds(60);
    /** The broker's smallest session timeout (group.min.session.timeout.ms). */
    static final Duration FAILOVER_AFTER = Duration.ofSeconds(6);

    AllotInfrastructure infra;
    KafkaProducer<String, SpecificRecord> producer;
    Events events;
    Tail<JobEvent> jobEvents;
    Tail<NodeCommand> commands;
    String team;
    final List<SchedulerLoop> loops = new ArrayList<>();

    @BeforeEach
    void given_a_cluster_of_our_own(AllotInfrastructure infra) {
        this.infra = infra;
        producer = infra.producer();
        events = new Events(producer, Events.id("standby"));
        jobEvents = new Tail<>(infra, Topics.JOB_EVENTS);
        commands = new Tail<>(infra, Topics.NODE_COMMANDS);
        String root = Events.id("org");
        team = root + "/a";
        events.budget(root, null, 1);
        events.budget(team, root, 1);
        events.node(events.cluster + "-n1", 8);
        events.node(events.cluster + "-n2", 8);
    }

    @AfterEach
    void close() throws Exception {
        loops.forEach(l -> {
            l.resume();
            l.stop();
        });
        jobEvents.close();
        commands.close();
        producer.close();
    }

    SchedulerLoop instance(Duration stallLimit) {
        SchedulerLoop loop = new SchedulerLoop(Settings.of(infra.bootstrapServers(), infra.registryUrl(), events.cluster)
                .withTick(Duration.ofMillis(200)).withLostAfter(Duration.ofMinutes(10))
                .withStandby(new Settings.Standby(FAILOVER_AFTER, stallLimit)), null);
        loops.add(loop);
        loop.start();
        return loop;
    }

    /** Two instances: the first to start becomes active, the second stands by. */
    SchedulerLoop[] activeAndStandby(Duration stallLimit) {
        SchedulerLoop first = instance(stallLimit);
        await().atMost(WAIT).until(() -> first.status().phase() == SchedulerLoop.Phase.RUNNING);
        SchedulerLoop second = instance(stallLimit);
        await().atMost(WAIT).until(() -> second.status().phase() == SchedulerLoop.Phase.STANDBY);
        return new SchedulerLoop[] {first, second};
    }

    List<ConsumerRecord<String, NodeCommand>> startsOf(String jobId) {
        return commands.records().stream().filter(r -> Events.startFor(r, jobId)).toList();
    }

    long placementsOf(String jobId) {
        return jobEvents.values(r -> r.key().equals(jobId)).stream().filter(e -> e.getPayload() instanceof JobPlaced)
                .count();
    }

    /** No job has two placements or two starts of one replica, and no GPU is given to two running jobs. */
    void assertNothingTwice(List<String> jobs) {
        Map<String, String> gpuHolder = new HashMap<>();
        for (String job : jobs) {
            assertThat(placementsOf(job)).as("JobPlaced of %s", job).isEqualTo(1);
            // the new active one resumes the inputs where the old one's last commit left them: a submission
            // read again would be refused as a duplicate
            assertThat(jobEvents.values(r -> r.key().equals(job)).stream().map(JobEvent::getPayload))
                    .as("events of %s", job).noneMatch(p -> p instanceof dev.allot.schemas.JobRejected);
            List<StartJob> starts = startsOf(job).stream().map(r -> (StartJob) r.value().getPayload()).toList();
            assertThat(starts).as("StartJob of %s", job).isNotEmpty()
                    .allSatisfy(s -> assertThat(s.getReplicas()).isEqualTo(starts.size()));
            assertThat(starts.stream().map(StartJob::getReplicaIndex).distinct()).as("replicas of %s", job)
                    .hasSize(starts.size());
            for (StartJob s : starts) {
                for (int gpu : s.getGpuIndices()) {
                    String other = gpuHolder.put(s.getNodeId() + ":" + gpu, job);
                    assertThat(other).as("GPU %s:%d given to %s and %s", s.getNodeId(), gpu, other, job).isNull();
                }
            }
        }
    }

    @Test
    void given_an_active_and_a_standby_when_the_active_is_killed_then_the_standby_rebuilds_and_goes_on_scheduling() {
        SchedulerLoop[] pair = activeAndStandby(Duration.ofMinutes(5));
        SchedulerLoop active = pair[0];
        SchedulerLoop standby = pair[1];
        String a = events.submit(team, 1, 4, 600);
        String b = events.submit(team, 2, 2, 600);
        await().atMost(WAIT).untilAsserted(() -> {
            assertThat(startsOf(a)).hasSize(1);
            assertThat(startsOf(b)).hasSize(2);
        });
        // the standby decided nothing meanwhile
        assertThat(standby.status().phase()).isEqualTo(SchedulerLoop.Phase.STANDBY);
        assertThat(standby.activeSinceMillis()).isEqualTo(-1);

        // when the active one dies in the middle of its next step that writes (sent, never committed): the one
        // that places c, or a tick's before it
        active.halt();
        String c = events.submit(team, 1, 3, 600);
        await().atMost(WAIT).until(active::ended);
        long killedAt = System.currentTimeMillis();

        // then the standby takes over, rebuilds the running jobs and places c once
        await().atMost(WAIT).pollInterval(Duration.ofMillis(20)).untilAsserted(() -> assertThat(startsOf(c)).hasSize(1));
        long firstDecisionAt = System.currentTimeMillis(); // seen by the tail: a few ms after the commit
        // (the status is published after the step's commit: the tail may see c's start first)
        await().atMost(WAIT).untilAsserted(() -> assertThat(standby.status().runningJobs()).containsKeys(a, b, c));
        assertThat(standby.status().phase()).isEqualTo(SchedulerLoop.Phase.RUNNING);
        assertThat(standby.status().rebuiltFromRecords()).isPositive();
        String d = events.submit(team, 1, 1, 600);
        await().atMost(WAIT).untilAsserted(() -> assertThat(startsOf(d)).hasSize(1));
        // (the job-events and node-commands tails are read by two consumers: wait until both have the decisions)
        await().atMost(WAIT).untilAsserted(() -> assertNothingTwice(List.of(a, b, c, d)));
        System.out.printf(Locale.ROOT, "BENCH failover (kill of the active instance, failover-after %d s): first "
                + "decision by the new active %.2f s after the kill (became active %.2f s after it, rebuild %d ms)%n",
                FAILOVER_AFTER.toSeconds(), (firstDecisionAt - killedAt) / 1e3,
                (standby.activeSinceMillis() - killedAt) / 1e3, standby.status().rebuildMillis());
    }

    @Test
    void given_a_frozen_active_when_the_standby_has_taken_over_then_the_resumed_zombie_is_fenced_and_its_step_never_shows() {
        Duration stallLimit = Duration.ofSeconds(8);
        SchedulerLoop[] pair = activeAndStandby(stallLimit);
        SchedulerLoop zombie = pair[0];
        SchedulerLoop standby = pair[1];
        String a = events.submit(team, 1, 4, 600);
        await().atMost(WAIT).untilAsserted(() -> assertThat(startsOf(a)).hasSize(1));

        // when the active one freezes in the middle of the step that places b (records sent, commit not yet)
        zombie.pauseBeforeCommit();
        String b = events.submit(team, 1, 4, 600);
        await().atMost(WAIT).until(zombie::frozen);

        // then the group drops it after stall-limit, the standby takes over and places b itself
        await().atMost(WAIT).untilAsserted(() -> assertThat(startsOf(b)).hasSize(1));
        assertThat(standby.status().phase()).isEqualTo(SchedulerLoop.Phase.RUNNING);

        // and the zombie, resumed, finds its transaction fenced: it stands by, its step never shows
        zombie.resume();
        await().atMost(WAIT).untilAsserted(() -> {
            assertThat(zombie.fencings()).isEqualTo(1);
            assertThat(zombie.status().phase()).isEqualTo(SchedulerLoop.Phase.STANDBY);
        });
        String c = events.submit(team, 1, 8, 600);
        await().atMost(WAIT).untilAsserted(() -> assertThat(startsOf(c)).hasSize(1));
        assertThat(standby.status().phase()).isEqualTo(SchedulerLoop.Phase.RUNNING);
        assertThat(zombie.status().phase()).isEqualTo(SchedulerLoop.Phase.STANDBY);
        await().atMost(WAIT).untilAsserted(() -> assertNothingTwice(List.of(a, b, c)));
    }

    @Test
    void given_an_active_and_a_standby_when_the_active_stops_then_the_standby_takes_over_at_once() {
        SchedulerLoop[] pair = activeAndStandby(Duration.ofMinutes(5));
        String a = events.submit(team, 1, 8, 600);
        await().atMost(WAIT).untilAsserted(() -> assertThat(startsOf(a)).hasSize(1));

        pair[0].stop(); // leaves the group: no session to wait out
        assertThat(pair[0].status().phase()).isEqualTo(SchedulerLoop.Phase.STOPPED);
        String b = events.submit(team, 1, 8, 600);
        await().atMost(WAIT).untilAsserted(() -> assertThat(startsOf(b)).hasSize(1));
        assertThat(pair[1].status().phase()).isEqualTo(SchedulerLoop.Phase.RUNNING);
        await().atMost(WAIT).untilAsserted(() -> assertNothingTwice(List.of(a, b)));
    }

    @Test
    void given_a_lone_active_dropped_by_the_group_when_the_role_comes_straight_back_then_it_goes_on_without_a_rebuild()
            throws Exception {
        SchedulerLoop loop = instance(Duration.ofSeconds(8));
        await().atMost(WAIT).until(() -> loop.status().phase() == SchedulerLoop.Phase.RUNNING);
        String a = events.submit(team, 1, 4, 600);
        await().atMost(WAIT).untilAsserted(() -> assertThat(startsOf(a)).hasSize(1));

        // when its loop freezes in the step that places b for longer than the stall limit, the group drops it
        loop.pauseBeforeCommit();
        String b = events.submit(team, 1, 2, 600);
        await().atMost(WAIT).until(loop::frozen);
        String group = Settings.of(infra.bootstrapServers(), infra.registryUrl(), events.cluster).groupId();
        try (org.apache.kafka.clients.admin.Admin admin = org.apache.kafka.clients.admin.Admin.create(
                Map.of("bootstrap.servers", infra.bootstrapServers()))) {
            await().atMost(WAIT).until(() -> admin.describeConsumerGroups(List.of(group)).describedGroups().get(group)
                    .get().members().isEmpty());
        }

        // then, resumed, it commits that step (nobody fenced it), loses the role, gets it straight back, and goes
        // on from its projection: nobody committed in between
        loop.resume();
        await().atMost(WAIT).untilAsserted(() -> {
            assertThat(loop.keptTerms()).isEqualTo(1);
            assertThat(loop.status().phase()).isEqualTo(SchedulerLoop.Phase.RUNNING);
        });
        assertThat(loop.fencings()).isZero();
        String c = events.submit(team, 1, 2, 600);
        await().atMost(WAIT).untilAsserted(() -> assertThat(startsOf(c)).hasSize(1));
        await().atMost(WAIT).untilAsserted(() -> assertThat(loop.status().runningJobs()).containsKeys(a, b, c));
        await().atMost(WAIT).untilAsserted(() -> assertNothingTwice(List.of(a, b, c)));
    }
}
