package dev.allot.accounting.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.apache.kafka.streams.KafkaStreams;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.junit.jupiter.api.Test;
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

    @Test
    void givenARunningClient_whenAThreadThatReplacedADeadOneIsStillJoining_thenNotReady() {
        HealthCheckResponse joining = StreamsServing.of(KafkaStreams.State.RUNNING,
                Map.of("app-StreamThread-1", "DEAD", "app-StreamThread-2", "STARTING"));
        HealthCheckResponse serving = StreamsServing.of(KafkaStreams.State.RUNNING,
                Map.of("app-StreamThread-1", "DEAD", "app-StreamThread-2", "RUNNING"));
        HealthCheckResponse allDead = StreamsServing.of(KafkaStreams.State.RUNNING, Map.of("app-StreamThread-1", "DEAD"));

        assertThat(joining.getStatus()).isEqualTo(HealthCheckResponse.Status.DOWN);
        assertThat(joining.getData()).hasValueSatisfying(data -> assertThat(data)
                .containsEntry("threads", "app-StreamThread-2 STARTING"));
        assertThat(serving.getStatus()).isEqualTo(HealthCheckResponse.Status.UP);
        assertThat(allDead.getStatus()).isEqualTo(HealthCheckResponse.Status.DOWN);
    }

    @Test
    void givenARunningClient_whenItsBacklogIsNotReadYet_thenNotReady_andSaysWhatIsLeft() {
        HealthCheckResponse running = StreamsServing.of(KafkaStreams.State.RUNNING,
                Map.of("app-StreamThread-1", "RUNNING"));

        HealthCheckResponse behind = StreamsServing.caughtUp(running, false, "round 1 of 2: 5 records to read");
        HealthCheckResponse caughtUp = StreamsServing.caughtUp(running, true, "caught up");
        HealthCheckResponse stopped = StreamsServing.caughtUp(StreamsServing.of(KafkaStreams.State.ERROR), true,
                "caught up");

        assertThat(behind.getStatus()).isEqualTo(HealthCheckResponse.Status.DOWN);
        assertThat(behind.getData()).hasValueSatisfying(data -> assertThat(data)
                .containsEntry("backlog", "round 1 of 2: 5 records to read").containsEntry("state", "RUNNING"));
        assertThat(caughtUp.getStatus()).isEqualTo(HealthCheckResponse.Status.UP);
        assertThat(stopped.getStatus()).isEqualTo(HealthCheckResponse.Status.DOWN);
    }
}
