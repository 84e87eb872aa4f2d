package dev.allot.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.microsoft.playwright.Locator;
import com.microsoft.playwright.Page;
import com.microsoft.playwright.assertions.LocatorAssertions;
import com.microsoft.playwright.assertions.PlaywrightAssertions;
import dev.allot.e2e.observability.ObservabilityFiles;
import dev.allot.testsupport.AllotInfra;
import dev.allot.testsupport.AllotInfrastructure;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The /ui dashboard in a real browser (Debian's chromium through Playwright) against the whole system as
 * real processes: a job submitted through the API waits in the queue page with its expected start, starts, shows on the GPU
 * timeline; a preemption's reason and preemptor show on the job page; the budget page charts delivery.
 * Then the metrics the Prometheus rules and the Grafana dashboard use are scraped from the running
 * services. One cluster of 2 nodes x 4 GPUs; screenshots of every page go to target/screenshots.
 */
@AllotInfra
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class DashboardEndToEndTest {

    static final Duration PATIENCE = Duration.ofSeconds(90);

    AllotSystem system;
    DashboardBrowser browser;
    String lab;

    @BeforeAll
    void startTheSystem(AllotInfrastructure infra) throws Exception {
        String cluster = "ui-" + UUID.randomUUID().toString().substring(0, 6);
        system = AllotSystem.start(infra, cluster, 2, 4);
        lab = "lab" + cluster.substring(3);
        // a PUT is idempotent: on a loaded machine the first write (schema registration, producer metadata) may
        // outlast the client's 10 s, so it is asked again until answered
        for (String path : List.of(lab, lab + "/team-a", lab + "/team-b", lab + "/team-c")) {
            await().atMost(PATIENCE).ignoreExceptions().until(() -> system.api.putBudget(path, 1).status(),
                    status -> status >= 200 && status <= 204);
        }
        browser = new DashboardBrowser(system.budget.url());
        PlaywrightAssertions.setDefaultAssertionTimeout(PATIENCE.toMillis());
    }

    @AfterAll
    void stopTheSystem() throws Exception {
        if (browser != null) {
            browser.close();
        }
        if (system != null) {
            system.close();
        }
    }

    @Test
    @Order(1)
    void givenAFullCluster_whenAJobIsSubmitted_thenTheQueueShowsItWaitingThenRunningAndTheTimelineShowsIt() {
        String blocker = system.api.submit(job("team-a", 2, 4, 600, sleep(600)));
        await().atMost(PATIENCE).until(() -> system.api.state(blocker), "RUNNING"::equals);
        Page queue = browser.open("/ui/queue.html?cluster=" + system.cluster);

        String waiting = system.api.submit(job("team-b", 1, 4, 60, sleep(600)));
        Locator waitingRow = queue.locator("#waiting tr[data-job='" + waiting + "']");
        PlaywrightAssertions.assertThat(waitingRow).isVisible();
        PlaywrightAssertions.assertThat(waitingRow.locator("td").first()).hasText("1");
        PlaywrightAssertions.assertThat(waitingRow.locator("td.reason")).not().isEmpty();
        // the scheduler's expected start: relative ("in 4 min", "~ in 60 min (default run times)", "> 7d"), with
        // what it rests on
        Locator start = waitingRow.locator("td.start");
        PlaywrightAssertions.assertThat(start).hasAttribute("data-basis",
                Pattern.compile("DECLARED|LEARNED|DEFAULT|BEYOND_HORIZON"));
        PlaywrightAssertions.assertThat(start).hasText(Pattern.compile(
                "^(~ )?(in .+|any moment now)( \\(default run times\\))?$|^> \\d+d$"));
        PlaywrightAssertions.assertThat(start).hasAttribute("title", Pattern.compile(".+"));
        PlaywrightAssertions.assertThat(queue.locator("#running tr[data-job='" + blocker + "']")).containsText("protected until");
        DashboardBrowser.screenshot(queue, "queue-waiting");

        system.api.send("DELETE", "/jobs/" + blocker, null);
        Locator runningRow = queue.locator("#running tr[data-job='" + waiting + "']");
        PlaywrightAssertions.assertThat(runningRow).isVisible();
        PlaywrightAssertions.assertThat(runningRow).containsText("protected until");
        DashboardBrowser.screenshot(queue, "queue-running");

        // keyboard: focus the row, Enter opens the job's page
        runningRow.focus();
        queue.keyboard().press("Enter");
        queue.waitForURL(Pattern.compile(".*job\\.html\\?.*id=" + Pattern.quote(waiting) + ".*"));
        PlaywrightAssertions.assertThat(queue.locator("#state")).hasText("RUNNING");
        PlaywrightAssertions.assertThat(queue.locator("#placement tr")).hasCount(1);

        Page timeline = browser.open("/ui/timeline.html?cluster=" + system.cluster + "&hours=0.25");
        PlaywrightAssertions.assertThat(timeline.locator("svg a.run[data-job='" + waiting + "']")).hasCount(4);
        PlaywrightAssertions.assertThat(timeline.locator("svg a.run[data-job='" + blocker + "']")).hasCount(8);
        DashboardBrowser.screenshot(timeline, "timeline");
        timeline.close();
        queue.close();
    }

    @Test
    @Order(2)
    void givenAnUnallocatedJob_whenAnAllocatedOneNeedsItsGpus_thenTheJobPageShowsThePreemptionWithReasonAndPreemptor() {
        String free = system.api.submit(job("team-a", 1, 4, 0, sleep(600)));
        await().atMost(PATIENCE).until(() -> system.api.state(free), "RUNNING"::equals);
        String displacer = system.api.submit(job("team-c", 1, 4, 60, sleep(600)));
        await().atMost(PATIENCE).until(() -> system.api.state(displacer), "RUNNING"::equals);

        Page page = browser.open("/ui/job.html?cluster=" + system.cluster + "&id=" + free);
        Locator preemption = page.locator("#preemptions tr.preemption");
        PlaywrightAssertions.assertThat(preemption).hasCount(1);
        PlaywrightAssertions.assertThat(preemption.locator("td.reason")).hasText("UNALLOCATED_DISPLACED");
        PlaywrightAssertions.assertThat(preemption).containsText(displacer);
        PlaywrightAssertions.assertThat(preemption).containsText(lab + "/team-c");
        PlaywrightAssertions.assertThat(page.locator("#history")).containsText("JobPreempted");
        DashboardBrowser.screenshot(page, "job-preempted");

        Page timeline = browser.open("/ui/timeline.html?cluster=" + system.cluster + "&hours=0.25");
        PlaywrightAssertions.assertThat(timeline.locator("svg path.preemption[data-job='" + free + "']"))
                .hasCount(4, new LocatorAssertions.HasCountOptions().setTimeout(PATIENCE.toMillis()));
        DashboardBrowser.screenshot(timeline, "timeline-preemption");
        timeline.close();
        page.close();
    }

    @Test
    @Order(3)
    void givenJobsThatRan_whenTheBudgetPageIsOpen_thenTheTreeShowsUsageAndTheChartDeliveryAndTheKeyboardPicksAnAccount() {
        Page page = browser.open("/ui/index.html?cluster=" + system.cluster + "&root=" + lab);
        Locator rows = page.locator("#accounts tr[data-key]");
        PlaywrightAssertions.assertThat(rows).hasCount(4);
        PlaywrightAssertions.assertThat(page.locator("#chart-account")).hasText(lab);
        // delivery reaches the chart through the scheduler's AccountDemand (every 5 s here)
        PlaywrightAssertions.assertThat(page.locator("#chart svg rect.delivered").first()).isAttached();
        PlaywrightAssertions.assertThat(page.locator("#accounts tr[data-key='" + lab + "/team-a'] td.delivered"))
                .not().hasText("0.00");

        rows.first().focus();
        page.keyboard().press("ArrowDown");
        page.keyboard().press("Enter");
        PlaywrightAssertions.assertThat(page.locator("#chart-account")).hasText(lab + "/team-a");
        PlaywrightAssertions.assertThat(page.locator("#accounts tr[data-key='" + lab + "/team-a']"))
                .hasAttribute("aria-selected", "true");
        DashboardBrowser.screenshot(page, "budgets");
        page.close();
    }

    @Test
    @Order(4)
    void givenTheRunningServices_whenScraped_thenEveryMetricTheRulesAndTheGrafanaDashboardUseIsExported() throws Exception {
        Set<String> used = ObservabilityFiles.exportedNamesUsed();
        assertThat(used).contains("allot_account_owed_gpu_hours", "allot_scheduler_last_pass_timestamp_seconds",
                "allot_consumer_lag_records", "allot_dead_letters_total");
        HttpClient http = HttpClient.newHttpClient();
        await().atMost(PATIENCE).untilAsserted(() -> {
            Set<String> exported = new TreeSet<>();
            Map<String, String> bodies = new HashMap<>();
            for (ServiceProcess service : List.of(system.budget, system.scheduler, system.accounting, system.agent)) {
                String body = http.send(HttpRequest.newBuilder(URI.create(service.url() + "/q/metrics")).build(),
                        HttpResponse.BodyHandlers.ofString()).body();
                bodies.put(service.url(), body);
                body.lines().filter(l -> !l.startsWith("#") && !l.isBlank())
                        .forEach(l -> exported.add(l.split("[{ ]", 2)[0]));
            }
            assertThat(exported).containsAll(used);
            // the owed-hours figures of this cluster's teams, and each service's lag
            assertThat(String.join("\n", bodies.values()))
                    .contains("allot_account_delivered_gpu_hours{account=\"" + lab + "/team-a\",cluster=\"" + system.cluster + "\",leaf=\"true\"}")
                    .contains("allot_consumer_lag_records{consumer=\"budget-service\"}")
                    .contains("allot_consumer_lag_records{consumer=\"accounting-service\"}")
                    .contains("allot_consumer_lag_records{consumer=\"node-agent\"}")
                    .contains("allot_consumer_lag_records{cluster=\"" + system.cluster + "\",consumer=\"scheduler-service\"}");
        });
    }

    private Map<String, Object> job(String team, int replicas, int gpus, long minRuntime, List<String> command) {
        Map<String, Object> job = new HashMap<>();
        job.put("budget", lab + "/" + team);
        job.put("cluster", system.cluster);
        job.put("replicas", replicas);
        job.put("gpusPerReplica", gpus);
        job.put("minRuntimeSeconds", minRuntime);
        job.put("resumable", true);
        job.put("command", command);
        return job;
    }

    private static List<String> sleep(int seconds) {
        return List.of("sleep", String.valueOf(seconds));
    }
}
