package dev.allot.edge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import dev.allot.schemas.NodeCommand;
import dev.allot.schemas.catalogue.Topics;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * What the reader decides without a registry (the framing), and what it does when the registry does not
 * answer. Against the real registry: {@code EventReaderTest} in test-support.
 */
class EventReaderFramingTest {

    /** Header of a record that names content id 7. */
    private static final byte[] HEADER_ID_7 = {0, 0, 0, 0, 7};

    @Test
    void givenBytesShorterThanTheHeader_whenRead_thenInvalidRecordNamesTheLength() {
        EventReader reader = new EventReader("http://127.0.0.1:1");

        assertThatThrownBy(() -> reader.read(new byte[] {0, 1, 2}, NodeCommand.class))
                .isInstanceOf(InvalidRecord.class)
                .hasMessage("not in the wire format: 3 bytes");
    }

    @Test
    void givenNoValue_whenRead_thenInvalidRecord() {
        EventReader reader = new EventReader("http://127.0.0.1:1");

        assertThatThrownBy(() -> reader.read(Topics.NODE_COMMANDS, null))
                .isInstanceOf(InvalidRecord.class)
                .hasMessage("not in the wire format: no value");
    }

    @Test
    void givenAnotherMagicByte_whenRead_thenInvalidRecordWithoutAskingTheRegistry() throws IOException {
        try (Stub registry = new Stub(500)) {
            EventReader reader = new EventReader(registry.url());

            assertThatThrownBy(() -> reader.read("{\"json\": true}".getBytes(), NodeCommand.class))
                    .isInstanceOf(InvalidRecord.class)
                    .hasMessage("not in the wire format: magic byte 123, expected 0");
            assertThat(registry.requests.get()).isZero();
        }
    }

    @Test
    void givenNoRegistryListening_whenRead_thenRegistryUnavailableNotInvalidRecord() throws IOException {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }
        EventReader reader = new EventReader("http://127.0.0.1:" + closedPort);

        assertThatThrownBy(() -> reader.read(HEADER_ID_7, NodeCommand.class))
                .isInstanceOf(RegistryUnavailable.class)
                .isNotInstanceOf(InvalidRecord.class)
                .hasMessageContaining("registry unreachable at http://127.0.0.1:" + closedPort + "/apis/registry/v3");
    }

    @Test
    void givenARegistryAnswering503_whenRead_thenRegistryUnavailable_andTheNextReadAsksAgain() throws IOException {
        try (Stub registry = new Stub(503)) {
            EventReader reader = new EventReader(registry.url() + "/apis/registry/v3");

            assertThatThrownBy(() -> reader.read(HEADER_ID_7, NodeCommand.class))
                    .isInstanceOf(RegistryUnavailable.class)
                    .hasMessageContaining("registry answered 503");
            assertThatThrownBy(() -> reader.read(HEADER_ID_7, NodeCommand.class))
                    .isInstanceOf(RegistryUnavailable.class);
            assertThat(registry.requests.get()).isEqualTo(2); // failures are not cached
        }
    }

    @Test
    void givenASample_whenWarmedUp_thenItReadsBackEqualWithoutTheRegistry() {
        NodeCommand sample = NodeCommand.newBuilder().setEventId("warm-up").setOccurredAt(java.time.Instant.EPOCH)
                .setPayload(dev.allot.schemas.StopJob.newBuilder().setJobId("j").setNodeId("n").setNodeEpoch(0)
                        .setReason(dev.allot.schemas.StopReason.PREEMPTED).build())
                .build();

        assertThat(new EventReader("http://127.0.0.1:1").warmUp(sample)).isEqualTo(sample);
    }

    @Test
    void givenRegistryUrls_whenNormalised_thenTheV3ApiOfTheSameHost() {
        assertThat(WriterSchemas.apiUrl("http://h:1")).isEqualTo("http://h:1/apis/registry/v3");
        assertThat(WriterSchemas.apiUrl("http://h:1/")).isEqualTo("http://h:1/apis/registry/v3");
        assertThat(WriterSchemas.apiUrl("http://h:1/apis/ccompat/v7")).isEqualTo("http://h:1/apis/registry/v3");
    }

    /** A registry that answers every request with one status. */
    private static final class Stub implements AutoCloseable {
        final AtomicInteger requests = new AtomicInteger();
        private final HttpServer server;

        Stub(int status) throws IOException {
            server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
            server.createContext("/", exchange -> {
                requests.incrementAndGet();
                exchange.sendResponseHeaders(status, -1);
                exchange.close();
            });
            server.start();
        }

        String url() {
            return "http://127.0.0.1:" + server.getAddress().getPort();
        }

        @Override
        public void close() {
            server.stop(0);
        }
    }
}
