package dev.allot.simulator;

import static dev.allot.simulator.SimulationEndToEndTest.json;
import static dev.allot.simulator.SimulationEndToEndTest.mixedTrace;
import static dev.allot.simulator.SimulationEndToEndTest.run;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.jsoup.Jsoup;
import org.jsoup.nodes.Document;
import org.jsoup.nodes.Element;
import org.jsoup.select.Elements;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** report.html's loss sections and side-by-side table, read back with an HTML parser. */
class HtmlReportTest {
    @TempDir
    static Path dir;
    static Document html;
    static Map<String, Object> budget;
    static Map<String, Object> budgetRun;

    @BeforeAll
    @SuppressWarnings("unchecked")
    static void runTheMixedWorkload() throws Exception {
        // given the mixed two-day workload of three teams at a load that makes the budget policy preempt,
        // beside priority, which never does
        Path trace = dir.resolve("trace.csv");
        Files.writeString(trace, mixedTrace());
        Path out = dir.resolve("out");
        assertThat(run("--trace", trace.toString(), "--format", "csv", "--days", "2", "--load", "2.5", "--out",
                out.toString(), "--policies", "budget,priority", "--quiet", "--warmup-days", "0", "--variants", "none"))
                .isZero();
        html = Jsoup.parse(Files.readString(out.resolve("report.html")));
        budget = (Map<String, Object>) ((Map<String, Object>) json(out.resolve("summary.json")).get("policies"))
                .get("budget");
        budgetRun = (Map<String, Object>) ((List<Object>) json(out.resolve("details.json")).get("runs")).get(0);
        assertThat(budgetRun.get("policy")).isEqualTo("budget");
        assertThat((Double) budget.get("preemptions")).isPositive();
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> teams() {
        return (List<Map<String, Object>>) (List<?>) budgetRun.get("teams");
    }

    @Test
    void theLostByTeamChartHasOneBarPerTeamWithItsFigures() {
        assertThat(html.select("h2").eachText()).contains("GPU-hours lost per team", "Preemptions over time");
        // one chart: priority preempted nothing, and the note says so
        Elements charts = html.select("svg.lost-by-team");
        assertThat(charts).hasSize(1);
        assertThat(html.select("h2:contains(GPU-hours lost per team) + p").text())
                .contains("No preemptions under priority");
        Elements bars = charts.first().select("g.team-bar");
        assertThat(bars.eachAttr("data-team")).containsExactly("nlp", "rl", "vision");
        double sum = 0;
        for (Element bar : bars) {
            Map<String, Object> t = teams().stream().filter(m -> m.get("team").equals(bar.attr("data-team")))
                    .findFirst().orElseThrow();
            double lost = (Double) t.get("lostGpuHours");
            sum += lost;
            assertThat(bar.selectFirst("title").text()).startsWith(bar.attr("data-team") + ": "
                    + String.format(Locale.ROOT, "%.1f", lost) + " GPU-h lost in "
                    + ((Double) t.get("preemptions")).intValue() + " preemptions");
            // a team that lost something has a bar: one segment per victim class that lost work
            assertThat(bar.select("rect").isEmpty()).isEqualTo(lost == 0);
        }
        assertThat(sum).isCloseTo((Double) budget.get("lostGpuHours"), within(1e-4));
    }

    @Test
    void detailsSplitEachTeamsLossBothWays() {
        double preemptions = 0;
        for (Map<String, Object> t : teams()) {
            double lost = (Double) t.get("lostGpuHours");
            assertThat((Double) t.get("lostGpuHoursAllocated") + (Double) t.get("lostGpuHoursUnallocated"))
                    .isCloseTo(lost, within(1e-5));
            assertThat((Double) t.get("lostGpuHoursResumable") + (Double) t.get("lostGpuHoursNonResumable"))
                    .isCloseTo(lost, within(1e-5));
            preemptions += (Double) t.get("preemptions");
        }
        assertThat(preemptions).isEqualTo(budget.get("preemptions"));
    }

    @Test
    @SuppressWarnings("unchecked")
    void theTimelineHasOneBucketPerHourOfTheTwoDaysAndItsCountsAddUp() {
        Elements charts = html.select("svg.preemption-timeline");
        assertThat(charts).hasSize(1);
        Elements buckets = charts.first().select("g.timeline-bucket");
        assertThat(buckets).hasSize(48);
        assertThat(charts.first().select("polyline.preemption-count").attr("points").trim().split(" ")).hasSize(48);
        Map<String, Object> tl = (Map<String, Object>) budgetRun.get("preemptionTimeline");
        assertThat(tl.get("bucketSeconds")).isEqualTo(3600.0);
        List<Double> counts = (List<Double>) (List<?>) tl.get("preemptions");
        List<Double> lostA = (List<Double>) (List<?>) tl.get("lostGpuHoursAllocated");
        List<Double> lostU = (List<Double>) (List<?>) tl.get("lostGpuHoursUnallocated");
        assertThat(counts).hasSize(48);
        double n = 0;
        double lost = 0;
        for (int i = 0; i < 48; i++) {
            n += counts.get(i);
            lost += lostA.get(i) + lostU.get(i);
            assertThat(buckets.get(i).selectFirst("title").text())
                    .startsWith("hour " + (i + 1) + ": " + counts.get(i).intValue() + " preemptions");
        }
        assertThat(n).isEqualTo(budget.get("preemptions"));
        assertThat(lost).isCloseTo((Double) budget.get("lostGpuHours"), within(1e-4));
        assertThat(lostA.stream().mapToDouble(Double::doubleValue).sum())
                .isCloseTo((Double) budget.get("lostGpuHoursAllocated"), within(1e-4));
    }

    @Test
    void theSideBySideTableHasTheGoodputRows() {
        Element table = html.selectFirst("h2:contains(Side by side) + table");
        assertThat(table.select("tr").first().select("th").eachText()).containsExactly("metric", "budget", "priority");
        List<String> rows = new ArrayList<>(table.select("tr > td:first-child").eachText());
        assertThat(rows).contains("lost share of GPU-time", "useful GPU-hours", "useful owed hours, mean",
                "useful owed hours, worst team", "preemptions: allocated / unallocated", "preemptions per 1,000 GPU-hours",
                "large head of line p90 / max (jobs)", "debug wait p90: allocated / unallocated",
                "preemption cycles (1 h)", "lost: allocated / unallocated", "lost: resumable / non-resumable");
        Element lostShare = table.select("tr:has(td:eq(0):matchesOwn(^lost share of GPU-time$))").first();
        assertThat(lostShare.select("td").get(1).text())
                .isEqualTo(String.format(Locale.ROOT, "%.1f%%", (Double) budget.get("lostShare") * 100));
        assertThat(lostShare.select("td").get(2).text()).isEqualTo("0.0%");
        Element split = table.select("tr:has(td:eq(0):matchesOwn(^preemptions: allocated / unallocated$))").first();
        assertThat(split.select("td").get(1).text()).isEqualTo(((Double) budget.get("preemptionsAllocated")).intValue()
                + " / " + ((Double) budget.get("preemptionsUnallocated")).intValue());
    }
}
