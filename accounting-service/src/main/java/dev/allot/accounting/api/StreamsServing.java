package dev.allot.accounting.api;

import jakarta.enterprise.context.ApplicationScoped;
import dev.allot.accounting.streams.CatchUp;
import jakarta.inject.Inject;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.ThreadMetadata;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.HealthCheckResponseBuilder;
import org.eclipse.microprofile.health.Readiness;

/**
 * Ready means serving: the topology runs and its stores answer. The extension's own readiness check
 * only asks whether the input topics exist, so the service answered ready while Streams was still
 * starting, and stayed ready after its threads died (e.g. on offsets lost in a broker reset). The client's state
 * is not enough either: a stream thread that replaces a dead one leaves the client RUNNING while it is still
 * joining the group (chaos, 2026-12-06: 6 minutes with no task and readiness UP), so every live thread must run too.
 * And RUNNING comes before the backlog is read: the stores must also have read the inputs as they stood at the start.
 */
@Readiness
@ApplicationScoped
public class StreamsServing implements HealthCheck {

    static final String NAME = "accounting streams serving";

    @Inject
    KafkaStreams streams;
    @Inject
    CatchUp catchUp;

    @Override
    public HealthCheckResponse call() {
        KafkaStreams.State state = streams.state();
        HealthCheckResponse running = of(state, state == KafkaStreams.State.RUNNING ? streams.metadataForLocalThreads()
                .stream().collect(Collectors.toMap(ThreadMetadata::threadName, ThreadMetadata::threadState)) : Map.of());
        return caughtUp(running, catchUp.caughtUp(), catchUp.progress());
    }

    /** Serving also needs the backlog the instance started with read ({@link CatchUp}). */
    static HealthCheckResponse caughtUp(HealthCheckResponse running, boolean caughtUp, String progress) {
        HealthCheckResponseBuilder response = HealthCheckResponse.named(NAME)
                .status(running.getStatus() == HealthCheckResponse.Status.UP && caughtUp);
        running.getData().ifPresent(data -> data.forEach((key, value) -> response.withData(key, value.toString())));
        return response.withData("backlog", progress).build();
    }

    static HealthCheckResponse of(KafkaStreams.State state) {
        return of(state, Map.of());
    }

    /**
     * UP only while RUNNING (CREATED, REBALANCING, PENDING_ERROR, ERROR and the shutdown states serve nothing) and
     * every stream thread but dead ones RUNNING, at least one of them.
     */
    static HealthCheckResponse of(KafkaStreams.State state, Map<String, String> threadStates) {
        List<String> notRunning = threadStates.entrySet().stream()
                .filter(t -> !t.getValue().equals("RUNNING") && !t.getValue().equals("DEAD"))
                .map(t -> t.getKey() + " " + t.getValue()).sorted().toList();
        boolean running = threadStates.isEmpty() || threadStates.containsValue("RUNNING");
        HealthCheckResponseBuilder response = HealthCheckResponse.named(NAME)
                .status(state == KafkaStreams.State.RUNNING && notRunning.isEmpty() && running)
                .withData("state", state.name());
        return notRunning.isEmpty() ? response.build() : response.withData("threads", String.join(", ", notRunning)).build();
    }
}
