package dev.allot.e2e.observability;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import org.junit.jupiter.api.Test;

/** deploy/prometheus: the rules are valid and their unit tests (alerts that fire and that stay silent) pass. */
class PrometheusRulesTest {

    @Test
    void givenTheRules_whenPromtoolChecksThem_thenTheyAreValid() throws Exception {
        Promtool.Result result = Promtool.run("check", "rules", "allot-rules.yml");
        assertThat(result.exit()).as(result.output()).isZero();
        assertThat(result.output()).contains("SUCCESS");
    }

    @Test
    void givenTheRuleTests_whenPromtoolRunsThem_thenEveryAlertFiresOrStaysSilentAsExpected() throws Exception {
        Promtool.Result result = Promtool.run("test", "rules", "allot-rules-test.yml");
        assertThat(result.exit()).as(result.output()).isZero();
        assertThat(result.output()).contains("SUCCESS");
        // every alert of the rules has at least one test where it fires and one where it stays silent
        String tests = Files.readString(ObservabilityFiles.prometheus().resolve("allot-rules-test.yml"));
        for (String alert : java.util.List.of("AllotTeamUnderServed", "AllotSchedulerNotPassing", "AllotConsumerLagGrowing",
                "AllotDeadLetters")) {
            assertThat(Files.readString(ObservabilityFiles.prometheus().resolve("allot-rules.yml"))).contains("alert: " + alert);
            assertThat(tests).contains("alertname: " + alert);
        }
    }

    @Test
    void givenTheExamplePrometheusConfig_whenPromtoolChecksIt_thenItLoadsTheRules() throws Exception {
        Promtool.Result result = Promtool.run("check", "config", "prometheus.yml");
        assertThat(result.exit()).as(result.output()).isZero();
        assertThat(result.output()).contains("SUCCESS: 11 rules found");
    }
}
