package dev.allot.accounting.api;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.apache.kafka.streams.KafkaStreams;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

/**
 * Ready means serving: the topology runs and its stores answer. The extension's own readiness check
 * only asks whether the input topics exist, so the service answered ready while Streams was still
 * starting, and stayed ready after its threads died (e.g. on offsets lost in a broker reset).
 */
@Readiness
@ApplicationScoped
public class StreamsServing implements HealthCheck {

    static final String NAME = "accounting streams serving";

    @Inject
    KafkaStreams streams;

    @Override
    public HealthCheckResponse call() {
        return of(streams.state());
    }

    /** UP only while RUNNING: CREATED, REBALANCING, PENDING_ERROR, ERROR and the shutdown states serve nothing. */
    static HealthCheckResponse of(KafkaStreams.State state) {
        return HealthCheckResponse.named(NAME).status(state == KafkaStreams.State.RUNNING)
                .withData("state", state.name()).build();
    }
}
