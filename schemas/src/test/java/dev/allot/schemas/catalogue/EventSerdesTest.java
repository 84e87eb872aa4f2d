package dev.allot.schemas.catalogue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import dev.allot.schemas.JobEvent;
import dev.allot.schemas.JobExited;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.kafka.common.serialization.Serializer;
import org.junit.jupiter.api.Test;

/** How the writer side reaches the registry. */
class EventSerdesTest {

    @Test
    void givenASchemaToRegister_whenARecordIsSerialised_thenTheRegistryIsCalledThroughTheJdkHttpClient() throws IOException {
        // a registry of this test's own that records who calls and refuses everything
        List<String> callers = new CopyOnWriteArrayList<>();
        HttpServer registry = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        registry.createContext("/", exchange -> {
            callers.add(exchange.getRequestMethod() + " " + exchange.getRequestHeaders().getFirst("User-Agent"));
            byte[] body = "{\"error_code\":500,\"message\":\"refused by the test\"}".getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(500, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        registry.start();
        try {
            Serializer<JobEvent> serializer = EventSerdes.valueSerializer(
                    "http://127.0.0.1:" + registry.getAddress().getPort());
            JobEvent event = JobEvent.newBuilder().setEventId("e-1").setOccurredAt(Instant.parse("2026-12-06T07:00:00Z"))
                    .setJobId("job-1").setStateAfter(null).setPayload(JobExited.newBuilder().setNodeId("node-1")
                            .setReplicaIndex(0).setExitCode(0).setStopped(false).build())
                    .build();

            assertThatThrownBy(() -> serializer.serialize(Topics.JOB_EVENTS.name(), event)).isNotNull();

            // the JDK's client (a Vert.x WebClient inside a Quarkus service once lost a registration's answer)
            assertThat(callers).isNotEmpty().allSatisfy(c -> assertThat(c).contains("Java-http-client"));
        } finally {
            registry.stop(0);
        }
    }
}
