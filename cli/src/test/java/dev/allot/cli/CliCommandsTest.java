package dev.allot.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.allot.schemas.AccountDemand;
import dev.allot.schemas.AccountRatio;
import dev.allot.schemas.ChargeMode;
import dev.allot.schemas.GpuAssignment;
import dev.allot.schemas.JobAccepted;
import dev.allot.schemas.JobEvent;
import dev.allot.schemas.JobPlaced;
import dev.allot.schemas.JobPreempted;
import dev.allot.schemas.JobRequeued;
import dev.allot.schemas.JobState;
import dev.allot.schemas.NodeHeartbeat;
import dev.allot.schemas.NodeRegistered;
import dev.allot.schemas.NodeStatus;
import dev.allot.schemas.PreemptionReason;
import dev.allot.schemas.QueueEntry;
import dev.allot.schemas.QueueSnapshot;
import dev.allot.schemas.StartEstimateBasis;
import dev.allot.schemas.UsageReported;
import dev.allot.schemas.catalogue.Topics;
import dev.allot.testsupport.Tail;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every command against the real budget-service on the real broker and registry: the text a person
 * reads and the JSON a script reads, and the exit codes. The scheduler's and agents' facts (verdicts,
 * queue snapshots, registrations, usage) are written onto their topics as those services write them.
 */
class CliCommandsTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static BudgetService service;
    private static String org;
    private static String teamA;
    private static String teamB;
    private static String cluster;
    private static String node1;
    private static String node2;
    private static Cli carol;

    @BeforeAll
    static void aTreeAClusterOfTwoNodes() throws Exception {
        service = BudgetService.shared();
        org = "o" + UUID.randomUUID().toString().replace("-", "").substring(0, 8);
        teamA = org + "/team-a";
        teamB = org + "/team-b";
        cluster = org + "-gpu";
        node1 = cluster + "-node-1";
        node2 = cluster + "-node-2";
        // the tree as the log has it, created two days ago: the usage two hours back below is owed (an account is
        // owed from its creation on)
        Instant created = Instant.now().minus(Duration.ofDays(2));
        for (String[] account : new String[][] {{org, null, "1"}, {teamA, org, "3"}, {teamB, org, "1"}}) {
            service.publish(Topics.BUDGETS, account[0], dev.allot.schemas.BudgetEvent.newBuilder()
                    .setEventId(UUID.randomUUID().toString()).setOccurredAt(Instant.now())
                    .setPayload(dev.allot.schemas.BudgetDefined.newBuilder().setPath(account[0]).setParent(account[1])
                            .setShare(Double.parseDouble(account[2])).setEffectiveAt(Instant.now()).setCreatedAt(created)
                            .setDefinedBy("admin").build()).build());
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> service.call("GET", "/budgets/" + teamB, null) == 200);
        for (String node : List.of(node1, node2)) {
            nodeStatus(node, new NodeRegistered(cluster, 8, "fake", 7L, "test:1", null));
            nodeStatus(node, new NodeHeartbeat(cluster, 7L, List.of(), null));
        }
        carol = new Cli(service.url, "carol").env("ALLOT_CLUSTER", cluster);
        await().atMost(Duration.ofSeconds(30)).until(() -> carol.run("nodes", "-c", cluster).out().contains(node2));
    }

    @Test
    void submit_fromFlags_printsTheIdAndTheSchedulersWord_andJsonCarriesTheJob() throws Exception {
        Cli.Result text = carol.run("submit", "-b", teamA, "-g", "2", "--min-runtime", "30m", "--resumable",
                "--expected-duration", "2h", "--id", org + "-flags", "--wait", "0", "--", "sleep", "60");

        assertThat(text.exitCode()).as(text.toString()).isZero();
        assertThat(text.out()).startsWith("submitted " + org + "-flags\n");
        JsonNode job = json(carol.run("why", org + "-flags", "-o", "json"));
        assertThat(job.path("budget").asText()).isEqualTo(teamA);
        assertThat(job.path("cluster").asText()).isEqualTo(cluster);

        Cli.Result asJson = carol.run("submit", "-b", teamA, "-g", "1", "--wait", "0", "-o", "json", "--", "true");
        assertThat(asJson.exitCode()).as(asJson.toString()).isZero();
        assertThat(json(asJson).path("id").asText()).isNotBlank();
    }

    @Test
    void submit_fromAYamlFile_takesItsFields_andFlagsWin(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("job.yaml");
        Files.writeString(file, """
                budget: %s
                gpus: 4
                replicas: 2
                minRuntime: 15m
                resumable: true
                command: "python train.py --epochs 3"
                """.formatted(teamB));

        Cli.Result result = carol.run("submit", "-f", file.toString(), "--id", org + "-file", "-g", "2", "--wait", "0");

        assertThat(result.exitCode()).as(result.toString()).isZero();
        JsonNode history = json(carol.run("history", org + "-file", "-o", "json"));
        JsonNode submitted = history.path("events").get(0).path("details");
        assertThat(submitted.path("budget").asText()).isEqualTo(teamB);
        assertThat(submitted.path("gpusPerReplica").asInt()).isEqualTo(2);
        assertThat(submitted.path("replicas").asInt()).isEqualTo(2);
        assertThat(submitted.path("minRuntimeSeconds").asLong()).isEqualTo(900);
        assertThat(submitted.path("command").toString()).isEqualTo("[\"sh\",\"-c\",\"python train.py --epochs 3\"]");
    }

    @Test
    void badInput_exitsWithTwoNamingTheField_refusalsWithOne_andNoServerWithThree() {
        Cli.Result noBudget = carol.run("submit", "-g", "2", "--", "sleep", "1");
        assertThat(noBudget.exitCode()).isEqualTo(2);
        assertThat(noBudget.err()).contains("budget is missing: --budget TEAM");

        Cli.Result badDuration = carol.run("submit", "-b", teamA, "-g", "1", "--min-runtime", "ten", "--", "x");
        assertThat(badDuration.exitCode()).isEqualTo(2);
        assertThat(badDuration.err()).contains("--min-runtime 'ten' is not a duration");

        Cli.Result unknownBudget = carol.run("submit", "-b", org + "/nobody", "-g", "1", "--", "x");
        assertThat(unknownBudget.exitCode()).as(unknownBudget.toString()).isEqualTo(1);
        assertThat(unknownBudget.err()).contains("field 'budget'").contains("unknown budget account");

        Cli.Result unknownOption = carol.run("jobs", "--colour");
        assertThat(unknownOption.exitCode()).isEqualTo(2);
        assertThat(unknownOption.err()).contains("--colour");

        Cli.Result unknownJob = carol.run("why", "no-such-job");
        assertThat(unknownJob.exitCode()).isEqualTo(1);
        assertThat(unknownJob.err()).contains("field 'id'").contains("unknown job 'no-such-job'");

        Cli.Result nobody = new Cli("http://127.0.0.1:1", "carol").run("jobs");
        assertThat(nobody.exitCode()).isEqualTo(3);
        assertThat(nobody.err()).contains("cannot reach the Allot API at http://127.0.0.1:1").contains("--server");
    }

    @Test
    void jobs_and_why_showPositionAccountsAheadWithRatiosReasonExpectedStartAndContract() throws Exception {
        String id = org + "-waits";
        String far = org + "-far";
        assertThat(carol.run("submit", "-b", teamA, "-g", "8", "-n", "2", "--min-runtime", "1h", "--id", id,
                "--wait", "0", "--", "sleep", "600").exitCode()).isZero();
        assertThat(carol.run("submit", "-b", teamA, "-g", "8", "-n", "2", "--min-runtime", "1h", "--id", far,
                "--wait", "0", "--", "sleep", "600").exitCode()).isZero();
        Instant now = Instant.now().truncatedTo(ChronoUnit.MILLIS);
        jobEvent(id, JobState.WAITING, now, JobAccepted.newBuilder().setBudget(teamA).setCluster(cluster).setChargeMode(ChargeMode.ALLOCATED).setQueuedAt(now).build());
        jobEvent(far, JobState.WAITING, now, JobAccepted.newBuilder().setBudget(teamA).setCluster(cluster).setChargeMode(ChargeMode.ALLOCATED).setQueuedAt(now).build());
        // expected in 3 h on default run times (a little less by the time the CLI reads it); the other beyond 7 days
        Instant expected = now.plus(Duration.ofHours(3)).plusSeconds(30);
        String reason = "waits for 16 GPUs on 2 nodes: 8 free on " + node1 + ", reservation for " + org
                + "-big holds " + node2 + " until its protected window ends";
        service.publish(Topics.QUEUE_STATUS, cluster, QueueSnapshot.newBuilder().setCluster(cluster).setAt(now)
                .setEstimatedAt(now).setEstimateHorizonSeconds(7 * 86_400L)
                .setEntries(List.of(QueueEntry.newBuilder().setJobId(id).setAccount(teamA).setState(JobState.WAITING)
                        .setPosition(2).setGpus(16).setReason(reason)
                        .setAccountsAhead(List.of(new AccountRatio(teamB, 3600.0, 36000.0, 0.1)))
                        .setExpectedStart(expected).setExpectedStartBasis(StartEstimateBasis.DEFAULT).build(),
                        QueueEntry.newBuilder().setJobId(far).setAccount(teamA).setState(JobState.WAITING)
                        .setPosition(3).setGpus(16).setReason("waits behind " + id).setAccountsAhead(List.of())
                        .setExpectedStartBasis(StartEstimateBasis.BEYOND_HORIZON).build()))
                .build());

        await().atMost(Duration.ofSeconds(20)).untilAsserted(() ->
                assertThat(carol.run("jobs", "--width", "200").out()).contains("not seen by the scheduler yet")
                        .contains(id + "  "));
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(carol.run("jobs", "--width", "200").out())
                .contains(reason.substring(0, 20)));
        Cli.Result jobs = carol.run("jobs", "--width", "120");
        String line = jobs.out().lines().filter(l -> l.startsWith(id + " ")).findFirst().orElseThrow();
        assertThat(line).contains(teamA).contains("WAITING").contains("16").contains(" 2 ")
                .containsPattern("~ in (3h00m|2h5\\dm) ");
        assertThat(jobs.out()).contains("\n~ expected start rests on default run times (low confidence)");
        assertThat(jobs.out().lines().filter(l -> l.startsWith(far + " ")).findFirst().orElseThrow())
                .contains(" 3 ").contains("> 7d ");
        assertThat(jobs.out().lines().allMatch(l -> l.length() <= 120)).as(jobs.out()).isTrue();
        assertThat(String.join(" ", jobs.out().lines().map(String::strip).toList())).contains(reason);
        JsonNode listed = json(carol.run("jobs", "--team", org, "-o", "json"));
        JsonNode mine = find(listed.path("jobs"), id);
        assertThat(mine.path("queue").path("position").asInt()).isEqualTo(2);
        assertThat(mine.path("expectedStart").path("at").asText()).isEqualTo(expected.toString());
        assertThat(mine.path("expectedStart").path("basis").asText()).isEqualTo("DEFAULT");
        assertThat(mine.path("expectedStart").path("horizonSeconds").asLong()).isEqualTo(604_800);
        assertThat(find(listed.path("jobs"), far).path("expectedStart").path("beyondHorizon").asBoolean()).isTrue();
        assertThat(carol.run("jobs", "--team", teamB).out()).doesNotContain(id);
        assertThat(new Cli(service.url, "dave").run("jobs").out()).doesNotContain(id);
        assertThat(new Cli(service.url, "dave").run("jobs", "--all").out()).contains(id);

        Cli.Result why = carol.run("why", id);
        assertThat(why.exitCode()).as(why.toString()).isZero();
        assertThat(why.out().lines().allMatch(l -> l.length() <= 120)).as(why.out()).isTrue();
        assertThat(flat(why.out())).contains("Position 2 in the queue of " + cluster)
                .contains("among " + org + "/*: " + teamB + " 0.10")
                .contains("its own branch " + teamA)
                .contains("reservation for " + org + "-big")
                .containsPattern("Expected start: ~ in (3h00m|2h5\\dm) \\(default run times\\) \\([0-9-]+ [0-9:]+\\): low confidence: ")
                .contains("allocated, protected for 1h00m after each start");
        JsonNode whyJson = json(carol.run("why", id, "-o", "json"));
        assertThat(whyJson.path("levels").get(0).path("ahead").get(0).path("ratio").asDouble()).isEqualTo(0.1);
        assertThat(whyJson.path("queue").path("reason").asText()).isEqualTo(reason);
        assertThat(whyJson.path("expectedStart").path("basis").asText()).isEqualTo("DEFAULT");
        assertThat(whyJson.path("expectedStart").path("lowConfidence").asBoolean()).isTrue();
        assertThat(flat(carol.run("why", far).out())).contains("Expected start: > 7d: not expected to start within the"
                + " scheduler's horizon of 7 days as the queue stands");
    }

    @Test
    void why_ofAPreemptedJob_namesWhoDisplacedItTheRatiosTheMarginAndTheWorkLost() throws Exception {
        String id = org + "-victim";
        assertThat(carol.run("submit", "-b", teamA, "-g", "2", "--min-runtime", "10m", "--id", id, "--wait", "0",
                "--", "sleep", "600").exitCode()).isZero();
        Instant t0 = Instant.now().truncatedTo(ChronoUnit.MILLIS);
        jobEvent(id, JobState.WAITING, t0, JobAccepted.newBuilder().setBudget(teamA).setCluster(cluster).setChargeMode(ChargeMode.ALLOCATED).setQueuedAt(t0).build());
        jobEvent(id, JobState.RUNNING, t0.plusMillis(1), placed(id, node1, List.of(0, 1), t0.plusSeconds(600)));
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() ->
                assertThat(flat(carol.run("why", id).out())).contains("Protected until"));
        Cli.Result nodes = carol.run("nodes");
        assertThat(nodes.out()).contains(id + "(2)");

        jobEvent(id, JobState.WAITING, t0.plusMillis(2), JobPreempted.newBuilder().setReason(PreemptionReason.FAIR_SHARE)
                .setExplanation(teamB + " is further below its share").setPreemptorJobId(org + "-bjob")
                .setPreemptorAccount(teamB)
                .setRatios(List.of(new AccountRatio(teamB, 10.0, 100.0, 0.1), new AccountRatio(teamA, 60.0, 100.0, 0.6)))
                .setLostGpuSeconds(7200.0).setRequeue(true).build());
        jobEvent(id, JobState.WAITING, t0.plusMillis(3), new JobRequeued(t0, 1, "preempted"));

        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(flat(carol.run("why", id).out()))
                .contains("displaced by job " + org + "-bjob of " + teamB)
                .contains("ratio 0.10 against its own 0.60, margin 0.50")
                .contains("work lost 2.00 GPU-h; requeued."));
        Cli.Result history = carol.run("history", id);
        assertThat(history.out().lines().map(l -> l.split("\\s+").length > 2 ? l.split("\\s+")[2] : "").toList())
                .containsSubsequence("JobSubmitted", "JobAccepted", "JobPlaced", "JobPreempted", "JobRequeued");
        assertThat(history.out()).contains("on " + node1 + "[0,1]").contains("preemptorJobId=" + org + "-bjob");
        assertThat(json(carol.run("history", id, "-o", "json")).path("count").asInt()).isEqualTo(5);
    }

    @Test
    void shares_and_usage_showTheTreeOwedVsDeliveredAndAnHourlyChart() throws Exception {
        long hour = Instant.now().truncatedTo(ChronoUnit.HOURS).toEpochMilli();
        // two hours ago team-a held 8 GPUs for the whole hour and asked for 8: owed min(12 entitled, 8) = 8
        long start = hour - 2 * 3_600_000L;
        service.publish(Topics.USAGE, org + "-u1", UsageReported.newBuilder().setJobId(org + "-u1").setAccount(teamA)
                .setCluster(cluster).setNodeId(node1).setGpus(8).setIntervalStart(Instant.ofEpochMilli(start))
                .setIntervalEnd(Instant.ofEpochMilli(start + 3_600_000L)).setGpuSeconds(8 * 3600.0)
                .setChargeMode(ChargeMode.ALLOCATED).build());
        service.publish(Topics.ACCOUNT_DEMAND, teamA, new AccountDemand(teamA, cluster, Instant.ofEpochMilli(start),
                Instant.ofEpochMilli(start + 3_600_000L), 8.0, 8.0, 0.0));

        await().atMost(Duration.ofSeconds(20)).untilAsserted(() ->
                assertThat(json(carol.run("usage", teamA, "--days", "1", "-o", "json")).path("deliveredGpuHours").asDouble())
                        .isEqualTo(8.0));
        JsonNode usage = json(carol.run("usage", teamA, "--days", "1", "-o", "json"));
        assertThat(usage.path("hours").size()).isEqualTo(24);
        assertThat(usage.path("owedGpuHours").asDouble()).isEqualTo(8.0);
        assertThat(usage.path("entitledGpuHours").asDouble()).isEqualTo(12.0 * 24);
        Cli.Result chart = carol.run("usage", teamA, "--days", "1", "--width", "60");
        assertThat(chart.exitCode()).as(chart.toString()).isZero();
        assertThat(flat(chart.out())).contains("█").contains("─").contains("charged 8.00 GPU-h")
                .contains("owed 8.00, delivered 8.00 (100.0% of owed)");
        assertThat(chart.out().lines().allMatch(l -> l.length() <= 60)).as(chart.out()).isTrue();

        Cli.Result shares = carol.run("shares", org);
        assertThat(shares.exitCode()).as(shares.toString()).isZero();
        String a = shares.out().lines().filter(l -> l.startsWith("  team-a ")).findFirst().orElseThrow();
        assertThat(a.split("\\s+")).contains("3", "75.0%", "12", "8.00");
        assertThat(shares.out()).contains("cluster " + cluster + ", 16 GPUs");
        assertThat(json(carol.run("shares", "-o", "json", org)).path("tree").path("children").size()).isEqualTo(2);

        Cli.Result tooLong = carol.run("usage", teamA, "--days", "30");
        assertThat(tooLong.exitCode()).isEqualTo(2);
        assertThat(tooLong.err()).contains("--days must be between 1 and 7");
    }

    @Test
    void drain_and_undrain_goThroughTheApiOntoNodeStatus_andNodesShowsTheState() throws Exception {
        Cli.Result drain = carol.run("drain", node2, "--reason", "MAINT-42");
        assertThat(drain.exitCode()).as(drain.toString()).isZero();
        assertThat(drain.out()).contains("drain requested for " + node2 + " (state DRAINING");

        try (Tail<NodeStatus> tail = new Tail<>(service.infra, Topics.NODE_STATUS)) {
            await().atMost(Duration.ofSeconds(20)).until(() -> tail.records().stream()
                    .anyMatch(r -> node2.equals(r.key()) && r.value().getPayload() instanceof dev.allot.schemas.NodeDrainRequested d
                            && d.getRequestedBy().equals("carol") && "MAINT-42".equals(d.getReason())
                            && d.getCluster().equals(cluster)));
        }
        Cli.Result nodes = carol.run("nodes");
        String line = nodes.out().lines().filter(l -> l.startsWith(node2)).findFirst().orElseThrow();
        assertThat(line).contains("DRAINING").contains("drain by carol (MAINT-42)");
        assertThat(nodes.out()).contains(cluster + ": 16 GPUs").contains("1 draining, 0 unreachable, 0 lost");
        assertThat(json(carol.run("nodes", "-o", "json")).path("nodes").get(1).path("draining").asBoolean()).isTrue();

        assertThat(carol.run("undrain", node2).out()).contains("drain lifted on " + node2 + " (state UP)");
        Cli.Result unknown = carol.run("drain", "no-such-node");
        assertThat(unknown.exitCode()).isEqualTo(1);
        assertThat(unknown.err()).contains("field 'id'").contains("unknown node 'no-such-node'");
    }

    @Test
    void givenATokenOfAnotherNameThanTheLogin_thenWritesGoThrough_andMyJobsAreTheTokensName() {
        // a login name (root) that is not the token's (erin): the API records the token's name
        Cli erin = new Cli(service.url, "erin").env("ALLOT_CLUSTER", cluster).env("USER", "root");
        String id = org + "-erin";

        Cli.Result submitted = erin.run("submit", "-b", teamA, "-g", "1", "--id", id, "--wait", "0", "--", "true");

        assertThat(submitted.exitCode()).as(submitted.toString()).isZero();
        assertThat(erin.run("jobs", "--width", "200").out()).contains(id);
        assertThat(new Cli(service.url, "root").run("jobs", "--width", "200").out()).doesNotContain(id);
        Cli.Result drained = erin.run("drain", node1, "--reason", "token name");
        assertThat(drained.exitCode()).as(drained.toString()).isZero();
        assertThat(erin.run("undrain", node1).exitCode()).isZero();
        // a name claimed with --user is still checked against the token's
        Cli.Result claimed = erin.run("submit", "-b", teamA, "-g", "1", "--wait", "0", "--user", "mallory", "--", "true");
        assertThat(claimed.exitCode()).as(claimed.toString()).isEqualTo(2);
        assertThat(claimed.err()).contains("X-Allot-Submitter 'mallory' is not the authenticated principal 'erin'");
    }

    @Test
    void cancel_asksTheScheduler_andAFinishedOrUnknownJobIsRefused() throws Exception {
        String id = org + "-cancel";
        assertThat(carol.run("submit", "-b", teamB, "-g", "1", "--id", id, "--wait", "0", "--", "sleep", "9")
                .exitCode()).isZero();

        Cli.Result cancel = carol.run("cancel", id, "--reason", "typo");
        assertThat(cancel.exitCode()).as(cancel.toString()).isZero();
        assertThat(cancel.out()).contains("cancel requested for " + id);
        assertThat(carol.run("history", id).out()).contains("JobCancelRequested").contains("reason=typo");
        assertThat(carol.run("cancel", "no-such-job").exitCode()).isEqualTo(1);
    }

    @Test
    void top_once_drawsBudgetsQueueAndNodes_withinTheScreen_andReasonsCutAtWords() throws Exception {
        String id = org + "-top";
        assertThat(carol.run("submit", "-b", teamB, "-g", "1", "--id", id, "--wait", "0", "--", "sleep", "9")
                .exitCode()).isZero();
        Instant now = Instant.now().truncatedTo(ChronoUnit.MILLIS).plusSeconds(1);
        String reason = "waits behind accounts that rank ahead: " + teamA + " ratio 0.05 and others further"
                + " below their share; nothing to preempt fairly";
        service.publish(Topics.QUEUE_STATUS, cluster, QueueSnapshot.newBuilder().setCluster(cluster).setAt(now)
                .setEstimatedAt(now).setEstimateHorizonSeconds(7 * 86_400L)
                .setEntries(List.of(QueueEntry.newBuilder().setJobId(id).setAccount(teamB).setState(JobState.WAITING)
                        .setPosition(1).setGpus(1).setReason(reason).setExpectedStart(now.plus(Duration.ofHours(2)))
                        .setExpectedStartBasis(StartEstimateBasis.DECLARED).build()))
                .build());
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() ->
                assertThat(carol.run("top", "--once", "--width", "90", "--height", "30").out()).contains(id));

        Cli.Result top = carol.run("top", "--once", "--width", "90", "--height", "30");
        assertThat(top.out()).contains("BUDGETS").contains("QUEUE").contains("NODES").contains(teamA).contains(node1);
        assertThat(top.out().lines().count()).isLessThanOrEqualTo(30);
        assertThat(top.out().lines().allMatch(l -> l.length() <= 90)).as(top.out()).isTrue();
        String queued = top.out().lines().filter(l -> l.contains(id)).findFirst().orElseThrow();
        assertThat(queued).containsPattern(" (2h00m|1h5\\dm) +waits behind");
        String shown = queued.substring(queued.indexOf("waits behind"));
        assertThat(shown).endsWith("…");
        String kept = shown.substring(0, shown.length() - 1);
        assertThat(reason).startsWith(kept);
        assertThat(reason.charAt(kept.length())).as("cut between words").isEqualTo(' ');
        JsonNode json = json(carol.run("top", "-o", "json"));
        assertThat(json.path("queue").path("entries").get(0).path("jobId").asText()).isEqualTo(id);
    }

    private static JobPlaced placed(String id, String node, List<Integer> gpus, Instant protectedUntil) {
        return JobPlaced.newBuilder().setCluster(cluster).setBudget(teamA)
                .setAssignments(List.of(new GpuAssignment(node, 7L, 0, gpus))).setChargeMode(ChargeMode.ALLOCATED)
                .setProtectedUntil(protectedUntil).setAttempt(1).setExplanation("fits on " + node).build();
    }

    /** The text with its line breaks and indentation as single spaces: what wrapping does not change. */
    private static String flat(String text) {
        return text.replaceAll("\\s+", " ");
    }

    private static JsonNode find(JsonNode jobs, String id) {
        for (JsonNode j : jobs) {
            if (j.path("id").asText().equals(id)) {
                return j;
            }
        }
        throw new AssertionError(id + " not in " + jobs);
    }

    private static JsonNode json(Cli.Result result) throws Exception {
        assertThat(result.exitCode()).as(result.toString()).isZero();
        return JSON.readTree(result.out());
    }

    private static void nodeStatus(String node, Object payload) {
        service.publish(Topics.NODE_STATUS, node, NodeStatus.newBuilder().setEventId(UUID.randomUUID().toString())
                .setOccurredAt(Instant.now()).setNodeId(node).setPayload(payload).build());
    }

    private static void jobEvent(String jobId, JobState stateAfter, Instant at, Object payload) {
        service.publish(Topics.JOB_EVENTS, jobId, JobEvent.newBuilder().setEventId(UUID.randomUUID().toString())
                .setOccurredAt(at).setJobId(jobId).setStateAfter(stateAfter).setPayload(payload).build());
    }
}
