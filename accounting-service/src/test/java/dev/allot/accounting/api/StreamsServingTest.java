package dev.allot.accounting.api;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.kafka.streams.KafkaStreams;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class StreamsServingTest {

    @ParameterizedTest
    @EnumSource(KafkaStreams.State.class)
    void givenAStreamsState_whenAskedIfReady_thenUpOnlyWhileRunning(KafkaStreams.State state) {
        HealthCheckResponse response = StreamsServing.of(state);

        assertThat(response.getStatus()).isEqualTo(state == KafkaStreams.State.RUNNING
                ? HealthCheckResponse.Status.UP : HealthCheckResponse.Status.DOWN);
        assertThat(response.getData()).hasValueSatisfying(data -> assertThat(data).containsEntry("state", state.name()));
    }
}
