package dev.allot.simulator;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code --start-estimates}: the expected start's accuracy in summary.json and the report. */
class StartEstimatesTest {

    @Test
    @SuppressWarnings("unchecked")
    void theAccuracyOfTheExpectedStartIsMeasuredPerPolicy(@TempDir Path dir) throws Exception {
        // given an overloaded two-day trace, so that jobs wait
        Path trace = dir.resolve("trace.csv");
        Files.writeString(trace, SimulationEndToEndTest.mixedTrace());
        Path out = dir.resolve("out");

        // when it is simulated with the estimates on
        int rc = SimulationEndToEndTest.run("--trace", trace.toString(), "--format", "csv", "--days", "2", "--load",
                "2.5", "--out", out.toString(), "--quiet", "--warmup-days", "0", "--variants", "none", "--policies",
                "budget,quota", "--start-estimates");

        // then each policy has the figures over the jobs that waited more than 10 minutes
        assertThat(rc).isZero();
        Map<String, Object> policies = (Map<String, Object>) SimulationEndToEndTest.json(out.resolve("summary.json"))
                .get("policies");
        for (String p : new String[] {"budget", "quota"}) {
            Map<String, Object> e = (Map<String, Object>) ((Map<String, Object>) policies.get(p)).get("startEstimate");
            assertThat(e).as(p).containsKeys("jobs", "medianAbsErrorSeconds", "p90AbsErrorSeconds", "withinQuarterShare",
                    "baselineMedianAbsErrorSeconds", "hourly", "refreshes", "wallSeconds");
            assertThat((Double) e.get("jobs")).as(p).isPositive();
            assertThat((Double) e.get("medianAbsErrorSeconds")).as(p).isNotNegative()
                    .isLessThanOrEqualTo((Double) e.get("p90AbsErrorSeconds"));
            assertThat((Double) e.get("withinQuarterShare")).as(p).isBetween(0.0, 1.0);
            Map<String, Object> hourly = (Map<String, Object>) e.get("hourly");
            // every job's submission sample is among the hourly ones
            assertThat((Double) hourly.get("jobs")).as(p).isGreaterThanOrEqualTo((Double) e.get("jobs"));
        }
        assertThat(Files.readString(out.resolve("report.html"))).contains("Expected start: accuracy");
    }

    @Test
    @SuppressWarnings("unchecked")
    void withoutTheFlagNothingIsEstimated(@TempDir Path dir) throws Exception {
        Path trace = dir.resolve("trace.csv");
        Files.writeString(trace, SimulationEndToEndTest.mixedTrace());
        Path out = dir.resolve("out");

        int rc = SimulationEndToEndTest.run("--trace", trace.toString(), "--format", "csv", "--days", "2", "--load",
                "2.5", "--out", out.toString(), "--quiet", "--warmup-days", "0", "--variants", "none", "--policies",
                "budget");

        assertThat(rc).isZero();
        Map<String, Object> budget = (Map<String, Object>) ((Map<String, Object>) SimulationEndToEndTest
                .json(out.resolve("summary.json")).get("policies")).get("budget");
        assertThat(budget).doesNotContainKey("startEstimate");
        assertThat(Files.readString(out.resolve("report.html"))).doesNotContain("Expected start: accuracy");
    }
}
