package dev.allot.scheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.allot.schemas.DeadLetter;
import dev.allot.schemas.JobEvent;
import dev.allot.schemas.JobLost;
import dev.allot.schemas.NodeCommand;
import dev.allot.schemas.catalogue.Topics;
import dev.allot.testsupport.AllotInfra;
import dev.allot.testsupport.AllotInfrastructure;
import dev.allot.testsupport.Tail;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/**
 * A node is heard when its heartbeat is read. When the scheduler reads node-status late (a backlog ahead of the
 * heartbeats: here bad records, at scale a flood of other nodes' heartbeats), a healthy node only looks silent;
 * judging it lost would fence the jobs it runs. Seen in the scale benchmark: 2,506 loss verdicts and 18,937
 * JobLost on healthy nodes.
 */
@AllotInfra
class HeartbeatsReadLateTest {

    static final Duration WAIT = Duration.ofMinutes(3);
    static final Duration LOST_AFTER = Duration.ofSeconds(3);
    /** Enough bad records that reading them takes several times {@link #LOST_AFTER} (each is a dead letter to write). */
    static final int BACKLOG = Integer.getInteger("allot.backlog.records", 60_000);

    @Test
    void given_a_running_job_when_its_nodes_heartbeats_queue_behind_a_backlog_then_the_node_is_not_judged_lost(
            AllotInfrastructure infra) throws Exception {
        KafkaProducer<String, SpecificRecord> producer = infra.producer();
        Events events = new Events(producer, Events.id("late"));
        String root = Events.id("org");
        String team = root + "/a";
        events.budget(root, null, 1);
        events.budget(team, root, 1);
        String node = events.cluster + "-n1";
        events.node(node, 8);
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        SchedulerLoop loop = new SchedulerLoop(Settings.of(infra.bootstrapServers(), infra.registryUrl(), events.cluster)
                .withTick(Duration.ofMillis(200)).withLostAfter(LOST_AFTER), meters);
        List<String> running = new CopyOnWriteArrayList<>();
        ScheduledExecutorService agent = Executors.newSingleThreadScheduledExecutor();
        try (Tail<JobEvent> jobEvents = new Tail<>(infra, Topics.JOB_EVENTS);
             Tail<NodeCommand> commands = new Tail<>(infra, Topics.NODE_COMMANDS);
             Tail<DeadLetter> deadLetters = new Tail<>(infra, Topics.DEAD_LETTERS);
             KafkaProducer<String, byte[]> raw = new KafkaProducer<>(Map.of("bootstrap.servers", infra.bootstrapServers(),
                     "linger.ms", 20, "batch.size", 1 << 20), new StringSerializer(), new ByteArraySerializer())) {
            loop.start();
            // the node's agent: a heartbeat every 300 ms, reporting what it runs
            agent.scheduleAtFixedRate(() -> events.heartbeat(node, List.copyOf(running)), 0, 300, TimeUnit.MILLISECONDS);
            String job = events.submit(team, 1, 1, 0);
            await().atMost(WAIT).until(() -> commands.records().stream().anyMatch(r -> Events.startFor(r, job)));
            running.add(job);

            // a step that reads only heartbeats writes nothing: its offsets are committed at most once a second, not
            // in a transaction per poll (here a heartbeat every 300 ms: about 10 polls with records in 3 s)
            Counter transactions = meters.get("allot.scheduler.transactions").counter();
            double quietFrom = transactions.count();
            await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(5))
                    .until(() -> transactions.count() - quietFrom <= 6);

            // when a backlog lands on node-status ahead of the node's next heartbeats (same key, same partition),
            // all of it on the broker before the instance reads again: it is frozen in a step meanwhile (a budget
            // written makes that step write), as a slow commit on an overloaded broker would hold it
            loop.pauseBeforeCommit();
            events.budget(root + "/b", root, 1);
            await().atMost(WAIT).until(loop::frozen);
            Random random = new Random(14);
            long writing = System.nanoTime();
            List<Future<RecordMetadata>> sent = new ArrayList<>();
            for (int i = 0; i < BACKLOG; i++) {
                byte[] garbage = new byte[16];
                random.nextBytes(garbage);
                garbage[0] = 1; // not the registry's framing: a dead letter without a registry lookup
                sent.add(raw.send(new ProducerRecord<>(Topics.NODE_STATUS.name(), node, garbage)));
            }
            raw.flush();
            RecordMetadata first = sent.get(0).get(1, TimeUnit.MINUTES);
            sent.get(BACKLOG - 1).get(1, TimeUnit.MINUTES);
            loop.resume();
            System.out.printf("HeartbeatsReadLateTest: %d bad records written in %.1f s%n", BACKLOG,
                    (System.nanoTime() - writing) / 1e9);
            long began = System.nanoTime();

            // then the scheduler reads it all (each bad record dead-lettered) ...
            String consumer = Settings.of(infra.bootstrapServers(), infra.registryUrl(), events.cluster).consumerName();
            await().atMost(WAIT).until(() -> deadLetters.values(r -> consumer.equals(r.value().getConsumer())
                    && Topics.NODE_STATUS.name().equals(r.value().getSourceTopic())
                    && r.value().getPartition() == first.partition() && r.value().getOffset() >= first.offset()).size()
                    == BACKLOG);
            System.out.printf("HeartbeatsReadLateTest: %d bad records read in %.1f s (lost-after %d s)%n", BACKLOG,
                    (System.nanoTime() - began) / 1e9, LOST_AFTER.toSeconds());
            // ... and a few ticks after it: the node was never judged lost, its job runs on
            long ticksAfter = System.currentTimeMillis() + 1_000;
            await().atMost(WAIT).until(() -> System.currentTimeMillis() > ticksAfter
                    && loop.status().lastPassAtMillis() > ticksAfter);
            assertThat(jobEvents.values(r -> r.key().equals(job)).stream().map(JobEvent::getPayload))
                    .noneMatch(p -> p instanceof JobLost);
            assertThat(commands.records().stream().filter(r -> Events.stopFor(r, job))).isEmpty();

            // and a node that does go silent is still judged lost once node-status is read to its end
            agent.shutdownNow();
            await().atMost(WAIT).untilAsserted(() -> assertThat(jobEvents.values(r -> r.key().equals(job)).stream()
                    .map(JobEvent::getPayload)).anyMatch(p -> p instanceof JobLost));
        } finally {
            agent.shutdownNow();
            loop.resume();
            loop.stop();
            producer.close();
        }
    }
}
