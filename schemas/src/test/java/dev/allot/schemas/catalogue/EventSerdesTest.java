package dev.allot.schemas.catalogue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import com.sun.net.httpserver.HttpServer;
import dev.allot.schemas.JobEvent;
import dev.allot.schemas.JobExited;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
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
            answer(exchange, 500, "{\"error_code\":500,\"message\":\"refused by the test\"}");
        });
        registry.start();
        try {
            Serializer<JobEvent> serializer = EventSerdes.valueSerializer(
                    "http://127.0.0.1:" + registry.getAddress().getPort());
            JobEvent event = exitedEvent();

            assertThatThrownBy(() -> serializer.serialize(Topics.JOB_EVENTS.name(), event)).isNotNull();

            // the JDK's client (a Vert.x WebClient inside a Quarkus service once lost a registration's answer)
            assertThat(callers).isNotEmpty().allSatisfy(c -> assertThat(c).contains("Java-http-client"));
        } finally {
            registry.stop(0);
        }
    }

    @Test
    void givenARegistrationTheRegistryNeverAnswers_whenARecordIsSerialised_thenTheCallIsSentAgainAndTheRecordWritten()
            throws IOException, InterruptedException {
        // a registry of this test's own: it registers whatever it is sent (a new content id per artifact), but
        // holds the first registration for ever, as the real one once did (2026-12-07: a node agent parked for good)
        Pattern artifactId = Pattern.compile("\"artifactId\"\\s*:\\s*\"([^\"]+)\"");
        List<String> posts = new CopyOnWriteArrayList<>();
        Map<String, Integer> contentIds = new ConcurrentHashMap<>();
        AtomicInteger nextId = new AtomicInteger(100);
        CountDownLatch end = new CountDownLatch(1);
        HttpServer registry = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        ExecutorService handlers = Executors.newCachedThreadPool();
        registry.setExecutor(handlers);
        registry.createContext("/", exchange -> {
            String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            if (!exchange.getRequestMethod().equals("POST")) {
                exchange.sendResponseHeaders(404, -1);
                exchange.close();
                return;
            }
            Matcher m = artifactId.matcher(body);
            String artifact = m.find() ? m.group(1) : "?";
            posts.add(artifact);
            if (posts.size() == 1) {
                try {
                    end.await(); // never answered while the test runs
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                exchange.close();
                return;
            }
            int id = contentIds.computeIfAbsent(artifact, a -> nextId.getAndIncrement());
            String coordinates = "{\"groupId\":\"default\",\"artifactId\":\"" + artifact + "\",\"version\":\"1\","
                    + "\"globalId\":" + id + ",\"contentId\":" + id + ",\"artifactType\":\"AVRO\"}";
            answer(exchange, 200, "{\"artifact\":{\"groupId\":\"default\",\"artifactId\":\"" + artifact
                    + "\",\"artifactType\":\"AVRO\"},\"version\":" + coordinates + "}");
        });
        registry.start();
        try {
            Serializer<JobEvent> serializer = EventSerdes.valueSerializer(
                    "http://127.0.0.1:" + registry.getAddress().getPort(), Duration.ofMillis(500), 3);
            JobEvent event = exitedEvent();

            // a guard against the hang itself (without the bound the call never returns), not a speed test
            byte[] bytes = assertTimeoutPreemptively(Duration.ofSeconds(60),
                    () -> serializer.serialize(Topics.JOB_EVENTS.name(), event));

            assertThat(posts).hasSizeGreaterThan(1);
            assertThat(posts.get(1)).as("the unanswered registration is sent again").isEqualTo(posts.get(0));
            ByteBuffer header = ByteBuffer.wrap(bytes, 0, 5);
            assertThat(header.get()).isZero(); // the Confluent wire format's magic byte
            // the record's own schema is registered last, after the nested records it references
            assertThat(header.getInt()).as("the id the registry gave the record's own schema")
                    .isEqualTo(contentIds.get(posts.get(posts.size() - 1)));
        } finally {
            end.countDown();
            registry.stop(0);
            handlers.shutdownNow();
            handlers.awaitTermination(5, TimeUnit.SECONDS);
        }
    }

    private static JobEvent exitedEvent() {
        return JobEvent.newBuilder().setEventId("e-1").setOccurredAt(Instant.parse("2026-12-07T07:00:00Z"))
                .setJobId("job-1").setStateAfter(null).setPayload(JobExited.newBuilder().setNodeId("node-1")
                        .setReplicaIndex(0).setExitCode(0).setStopped(false).build())
                .build();
    }

    private static void answer(com.sun.net.httpserver.HttpExchange exchange, int status, String json) throws IOException {
        byte[] body = json.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().add("Content-Type", "application/json");
        exchange.sendResponseHeaders(status, body.length);
        exchange.getResponseBody().write(body);
        exchange.close();
    }
}
