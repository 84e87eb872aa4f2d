package dev.allot.core.contract;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.core.JobRequest;
import dev.allot.core.SchedulerConfig;
import org.junit.jupiter.api.Test;

/** The 8 h maximum minimum runtime, written once in {@link Contract}. */
class MaxMinRuntimeTest {

    private static JobRequest job(long minRuntimeMillis) {
        return JobRequest.of("j", "a", "c1", 1, 1, minRuntimeMillis, true, 0);
    }

    @Test
    void givenTheDefaults_whenTheMaximumIsAsked_thenItIsTheContractsEightHours() {
        assertThat(Contract.MAX_MIN_RUNTIME_MILLIS).isEqualTo(8 * SchedulerConfig.HOUR);
        assertThat(Contract.MAX_MIN_RUNTIME_SECONDS * 1000).isEqualTo(Contract.MAX_MIN_RUNTIME_MILLIS);
        assertThat(SchedulerConfig.defaults().maxMinRuntimeMillis()).isEqualTo(Contract.MAX_MIN_RUNTIME_MILLIS);
    }

    @Test
    void givenAMinimumRuntimeAtTheMaximum_whenValidated_thenItPassesAndOneMillisecondMoreIsRefused() {
        assertThat(Contract.validate(job(Contract.MAX_MIN_RUNTIME_MILLIS), Contract.MAX_MIN_RUNTIME_MILLIS)).isEmpty();

        assertThat(Contract.validate(job(Contract.MAX_MIN_RUNTIME_MILLIS + 1), Contract.MAX_MIN_RUNTIME_MILLIS))
                .hasValueSatisfying(reason -> assertThat(reason).contains("exceeds the maximum of 480 min"));
    }
}
