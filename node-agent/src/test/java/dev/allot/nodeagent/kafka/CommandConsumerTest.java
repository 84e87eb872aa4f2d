package dev.allot.nodeagent.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.allot.edge.KafkaClients;
import dev.allot.edge.RegistryUnavailable;
import dev.allot.nodeagent.AgentMetrics;
import dev.allot.nodeagent.AgentReports;
import dev.allot.nodeagent.HostedNode;
import dev.allot.nodeagent.NodeAgent;
import dev.allot.nodeagent.StateDir;
import dev.allot.nodeagent.gpu.FakeGpuBackend;
import dev.allot.schemas.DeadLetter;
import dev.allot.schemas.UsageReported;
import dev.allot.schemas.catalogue.Topics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What the command loop does with records it cannot read, without a broker (records handed in directly). */
class CommandConsumerTest {

    private final ScheduledExecutorService timers = Executors.newScheduledThreadPool(1);
    private final List<DeadLetter> deadLetters = new CopyOnWriteArrayList<>();

    @AfterEach
    void stopTimers() {
        timers.shutdownNow();
    }

    @Test
    void givenTheRegistryDoesNotAnswer_whenACommandArrives_thenItIsRetriedNotDeadLettered(@TempDir Path dir)
            throws IOException {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }
        byte[] command = {0, 0, 0, 0, 42, 1, 2, 3}; // names content id 42, which only the registry can resolve
        try (CommandConsumer consumer = consumer(dir, "http://127.0.0.1:" + closedPort)) {

            assertThatThrownBy(() -> consumer.process(record(command))).isInstanceOf(RegistryUnavailable.class);

            assertThat(deadLetters).isEmpty();
        }
    }

    @Test
    void givenBytesNotInTheWireFormat_whenACommandArrives_thenDeadLetteredWithTheReason(@TempDir Path dir)
            throws IOException {
        byte[] garbage = "not avro".getBytes(StandardCharsets.UTF_8);
        try (CommandConsumer consumer = consumer(dir, "http://127.0.0.1:1")) {

            consumer.process(record(garbage));

            assertThat(deadLetters).singleElement().satisfies(letter -> {
                assertThat(letter.getReason()).isEqualTo("undecodable node command: InvalidRecord: not in the wire "
                        + "format: magic byte 110, expected 0");
                assertThat(letter.getConsumer()).isEqualTo(CommandConsumer.CONSUMER_NAME);
                assertThat(letter.getOffset()).isEqualTo(7);
            });
        }
    }

    private CommandConsumer consumer(Path dir, String registryUrl) {
        StateDir state = new StateDir(dir);
        AgentMetrics metrics = new AgentMetrics(new SimpleMeterRegistry());
        Reports reports = new Reports();
        NodeAgent agent = new NodeAgent(List.of(new HostedNode("n1", "test", new FakeGpuBackend(1),
                state.nextEpoch("n1", 0))), state, reports, metrics, Clock.systemUTC(), timers, "test");
        return new CommandConsumer(new KafkaClients("127.0.0.1:1", registryUrl), "test", agent, reports, metrics);
    }

    private static ConsumerRecord<byte[], byte[]> record(byte[] value) {
        return new ConsumerRecord<>(Topics.NODE_COMMANDS.name(), 0, 7, "n1".getBytes(StandardCharsets.UTF_8), value);
    }

    private final class Reports implements AgentReports {
        @Override
        public void nodeStatus(String nodeId, Object payload, Instant occurredAt) {
        }

        @Override
        public void jobEvent(String eventId, String jobId, Object payload, Instant occurredAt) {
        }

        @Override
        public void usage(UsageReported usage) {
        }

        @Override
        public void deadLetter(DeadLetter deadLetter) {
            deadLetters.add(deadLetter);
        }

        @Override
        public void flush() {
        }
    }
}
