package dev.allot.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ChaosReportTest {

    private static ChaosReport clean(List<Recovery> recoveries) {
        return new ChaosReport(10, 10, 10, 0, 10, 0, 0, List.of(), List.of(), List.of(), List.of(), List.of(), 5.0,
                0.0, List.of(), Map.of(), recoveries, 0);
    }

    private static String printed(ChaosReport report) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        report.print(new PrintStream(bytes, true, StandardCharsets.UTF_8));
        return bytes.toString(StandardCharsets.UTF_8);
    }

    @Test
    void givenAComponentServingLaterThanTenSecondsAfterItsRestart_whenPrinted_thenTheRecoveryTargetSaysMissedAndWho() {
        ChaosReport report = clean(List.of(new Recovery("kafka", 0, 5_000, 15_400),
                new Recovery("budget-service", 20_000, 25_000, 31_000)));

        assertThat(report.slowRecoveries()).extracting(Recovery::component).containsExactly("kafka");
        assertThat(printed(report)).contains("recovery within 10 s of each restart: MISSED (kafka 10.4 s)")
                .contains("targets met: 0 lost"); // the correctness targets are judged apart
    }

    @Test
    void givenEveryComponentWithinTenSeconds_whenPrinted_thenTheRecoveryTargetIsMet() {
        ChaosReport report = clean(List.of(new Recovery("kafka", 0, 5_000, 15_000)));

        assertThat(report.slowRecoveries()).isEmpty();
        assertThat(printed(report)).contains("recovery within 10 s of each restart: met");
    }

    @Test
    void givenNoKill_whenPrinted_thenNoRecoveryVerdict() {
        assertThat(printed(clean(List.of()))).doesNotContain("recovery within");
    }
}
