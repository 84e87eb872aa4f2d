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
        String report = Files.readString(out.resolve("report.html"));
        assertThat(report).contains("Expected start: accuracy");
        // and the chart has a dot per measured job of each policy (estimated against actual wait)
        int dots = report.split("<circle r=", -1).length - 1;
        int measured = 0;
        for (String p : new String[] {"budget", "quota"}) {
            measured += ((Double) ((Map<String, Object>) ((Map<String, Object>) policies.get(p)).get("startEstimate"))
                    .get("jobs")).intValue();
        }
        assertThat(report).contains("estimated wait at submission");
        assertThat(dots).isEqualTo(measured);
    }

    @Test
    @SuppressWarnings("unchecked")
    void toldTheRunsExactFiguresTheEstimatesComeCloserAndEverySampleIsWrittenOut(@TempDir Path dir) throws Exception {
        // given the overloaded two-day trace, estimated as the service does and told the run's exact run
        // times and future submissions, both with the same fine steps
        Path trace = dir.resolve("trace.csv");
        Files.writeString(trace, SimulationEndToEndTest.mixedTrace());
        String[] common = {"--trace", trace.toString(), "--format", "csv", "--days", "2", "--load", "2.5", "--quiet",
            "--warmup-days", "0", "--variants", "none", "--policies", "budget", "--start-estimates"};
        Path plain = dir.resolve("plain");
        Path told = dir.resolve("told");

        // when both are simulated
        int rc1 = SimulationEndToEndTest.run(concat(common, "--out", plain.toString(), "--estimate-steps",
                "20000,0,0.005,300"));
        int rc2 = SimulationEndToEndTest.run(concat(common, "--out", told.toString(), "--estimate-oracle", "BOTH",
                "--estimate-steps", "20000,0,0.005,300"));

        // then the told estimates' median error is smaller, the summary says what they were told, and
        // each run writes every sample, one line each, with the first start the figures compare with
        assertThat(rc1).isZero();
        assertThat(rc2).isZero();
        Map<String, Object> e1 = estimate(plain);
        Map<String, Object> e2 = estimate(told);
        assertThat(e1).doesNotContainKey("oracle");
        assertThat(e2).containsEntry("oracle", "BOTH");
        assertThat((Double) e2.get("medianAbsErrorSeconds")).as("told %s, not told %s", e2, e1)
                .isLessThan((Double) e1.get("medianAbsErrorSeconds"));
        for (Path out : new Path[] {plain, told}) {
            java.util.List<String> lines = Files.readAllLines(out.resolve("start-estimates-budget.csv"));
            assertThat(lines.get(0)).isEqualTo("job,account,replicas,gpus_per_replica,unallocated,submitted_s,sampled_s,"
                    + "at_submission,estimate_s,basis,baseline_s,first_start_s,oracle");
            Map<String, Object> hourly = (Map<String, Object>) estimate(out).get("hourly");
            // every sample, including those the figures leave out (short waits, never started)
            assertThat(lines.size() - 1).isGreaterThanOrEqualTo(((Double) hourly.get("jobs")).intValue());
            long atSubmission = lines.stream().skip(1).filter(l -> l.split(",")[7].equals("true")).count();
            assertThat(atSubmission).isGreaterThanOrEqualTo(((Double) estimate(out).get("jobs")).longValue());
        }
        assertThat(Files.readAllLines(told.resolve("start-estimates-budget.csv")).get(1)).endsWith(",BOTH");
    }

    @Test
    void theMedianOfTheLearnedRunsGivesOtherEstimatesThanTheMean(@TempDir Path dir) throws Exception {
        // given the overloaded two-day trace estimated with the learned runs' mean and with their median
        Path trace = dir.resolve("trace.csv");
        Files.writeString(trace, SimulationEndToEndTest.mixedTrace());
        String[] common = {"--trace", trace.toString(), "--format", "csv", "--days", "2", "--load", "2.5", "--quiet",
            "--warmup-days", "0", "--variants", "none", "--policies", "budget", "--start-estimates"};

        // when both are simulated
        int rc1 = SimulationEndToEndTest.run(concat(common, "--out", dir.resolve("mean").toString()));
        int rc2 = SimulationEndToEndTest.run(concat(common, "--out", dir.resolve("median").toString(),
                "--estimate-run-times", "MEDIAN"));

        // then the same jobs are sampled at the same moments, and some estimates differ (the runs are not all alike)
        assertThat(rc1).isZero();
        assertThat(rc2).isZero();
        java.util.List<String> mean = Files.readAllLines(dir.resolve("mean").resolve("start-estimates-budget.csv"));
        java.util.List<String> median = Files.readAllLines(dir.resolve("median").resolve("start-estimates-budget.csv"));
        assertThat(median).hasSameSizeAs(mean);
        java.util.function.Function<String, String> sample = l -> String.join(",", java.util.Arrays.asList(l.split(","))
                .subList(0, 8));
        assertThat(median.stream().map(sample).toList()).isEqualTo(mean.stream().map(sample).toList());
        assertThat(median).isNotEqualTo(mean);
    }

    @Test
    void badEstimateStepsAreRefusedNamingTheOption(@TempDir Path dir) {
        java.io.StringWriter err = new java.io.StringWriter();
        picocli.CommandLine cl = SimulateCommand.commandLine();
        cl.setErr(new java.io.PrintWriter(err, true));
        ((SimulateCommand) cl.getCommand()).stdout = new java.io.PrintStream(new java.io.ByteArrayOutputStream());

        int rc = cl.execute("--synthetic", "50", "--days", "1", "--out", dir.resolve("o").toString(), "--quiet",
                "--start-estimates", "--estimate-steps", "200,60,0.05");

        assertThat(rc).isEqualTo(2);
        assertThat(err.toString()).contains("--estimate-steps needs PASSES,MIN_STEP_S,FRACTION,TICK_S");
        assertThat(dir.resolve("o").resolve("summary.json")).doesNotExist();
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> estimate(Path out) throws Exception {
        Map<String, Object> policies = (Map<String, Object>) SimulationEndToEndTest.json(out.resolve("summary.json"))
                .get("policies");
        return (Map<String, Object>) ((Map<String, Object>) policies.get("budget")).get("startEstimate");
    }

    private static String[] concat(String[] a, String... b) {
        String[] c = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, c, a.length, b.length);
        return c;
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
