package dev.allot.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.allot.schemas.BudgetUsage;
import dev.allot.schemas.catalogue.Topics;
import dev.allot.testsupport.AllotInfra;
import dev.allot.testsupport.AllotInfrastructure;
import dev.allot.testsupport.Tail;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@code bin/allot whatif} on a log the whole system wrote: the budget-, accounting- and scheduler-services and a node
 * agent (one fake node of 4 GPUs) run six whole-node jobs of two teams with equal shares, as real processes; then the
 * command reads the log from the broker and replays it.
 *
 * <p>Tolerances, per team: the replay's delivered GPU-hours of the tree as recorded are within 4 GPU-seconds per job
 * of what the log's placements held (the trace rounds submit times and durations to whole seconds), and within 10 %
 * plus 2 s x 4 GPUs per job of what the accounting-service charged live: its figure comes from the node agent's
 * usage reports (process start to exit) while a run holds its GPUs from placement to completion, measured 1.3 s
 * longer per job on a loaded 2-core machine (a fresh agent's first job takes several seconds more to start: a
 * warm-up job of another budget runs first, before the window). Completed jobs are equal. Giving one team 9 times the other's share makes that team wait less
 * (its p90 wait) and the other no less. Cut halfway through the fourth run, while jobs still wait, the same change
 * moves delivered GPU-hours toward that team and away from the other.
 */
@AllotInfra
class WhatIfEndToEndTest {

    static final Duration PATIENCE = Duration.ofSeconds(120);
    static final int JOBS_PER_TEAM = 3;
    static final int SLEEP_SECONDS = 5;

    @Test
    void givenARunOfTheWholeSystem_whenReplayed_thenTheRecordedTreeReproducesTheLiveFiguresAndMoreShareMeansLessWait(
            AllotInfrastructure infra) throws Exception {
        String cluster = "wi-" + UUID.randomUUID().toString().substring(0, 6);
        String lab = "lab" + cluster.substring(3);
        String warm = "warm" + cluster.substring(3);
        Map<String, Double> liveCharged = new HashMap<>();
        List<Instant> completions = new ArrayList<>();
        Instant started;
        try (AllotSystem system = AllotSystem.start(infra, cluster, 1, 4)) {
            // given: two teams with equal shares, each queueing whole-node jobs (not debug-shaped: 20 min protected)
            assertThat(system.api.putBudget(lab, 1).status()).isBetween(200, 204);
            for (String team : List.of("a", "b")) {
                assertThat(system.api.putBudget(lab + "/" + team, 1).status()).isBetween(200, 204);
            }
            assertThat(system.api.putBudget(warm, 1).status()).isBetween(200, 204);
            assertThat(system.api.putBudget(warm + "/w", 1).status()).isBetween(200, 204);
            String warmUp = system.api.submit(job(warm + "/w", cluster));
            await().atMost(PATIENCE).until(() -> system.api.state(warmUp), "COMPLETED"::equals);
            started = Instant.now();
            List<String> ids = new ArrayList<>();
            for (int i = 0; i < JOBS_PER_TEAM; i++) {
                for (String team : List.of("a", "b")) {
                    ids.add(system.api.submit(job(lab + "/" + team, cluster)));
                }
            }
            for (String id : ids) {
                await().atMost(PATIENCE).until(() -> system.api.state(id), "COMPLETED"::equals);
                for (JsonNode line : system.api.job(id).path("history")) {
                    if ("JobCompleted".equals(line.path("type").asText())) {
                        completions.add(Instant.parse(line.path("at").asText()));
                    }
                }
            }
            // the live figure: the accounting-service's charged GPU-seconds per team, once it stops moving
            try (Tail<BudgetUsage> usage = new Tail<>(infra, Topics.BUDGET_USAGE)) {
                for (String team : List.of("a", "b")) {
                    String key = Topics.accountKey(cluster, lab + "/" + team);
                    double[] last = {-1};
                    await().atMost(PATIENCE).pollInterval(Duration.ofSeconds(3)).until(() -> {
                        List<BudgetUsage> values = usage.values(r -> key.equals(r.key()));
                        double now = values.isEmpty() ? 0 : values.get(values.size() - 1).getChargedGpuSeconds();
                        boolean settled = now > 0 && now == last[0];
                        last[0] = now;
                        return settled;
                    });
                    liveCharged.put(lab + "/" + team, last[0]);
                }
            }
        }
        Instant until = Instant.now();
        double days = Duration.between(started, until).toMillis() / 86_400_000.0;
        Path out = Files.createDirectories(Path.of("target/whatif-e2e"));

        // when
        Result r = whatif(infra, "--cluster", cluster, "--until", until.toString(), "--days", String.valueOf(days),
                "--set", lab + "/a=9", "-o", "json", "--out", out.toString());
        Result table = whatif(infra, "--cluster", cluster, "--until", until.toString(), "--days", String.valueOf(days),
                "--set", lab + "/a=9", "--width", "200", "--out", out.toString());
        Files.writeString(out.resolve("table.txt"), table.out());

        // then
        assertThat(r.exit()).as(r.toString()).isZero();
        assertThat(table.exit()).as(table.toString()).isZero();
        JsonNode json = new ObjectMapper().readTree(r.out());
        assertThat(json.at("/window/nodes").asInt()).isEqualTo(1);
        assertThat(json.at("/trace/jobs").asInt()).isEqualTo(2 * JOBS_PER_TEAM);
        assertThat(json.at("/trace/ended").asInt()).isEqualTo(2 * JOBS_PER_TEAM);
        int completedBefore = 0;
        Map<String, JsonNode> teams = new HashMap<>();
        for (JsonNode t : json.get("teams")) {
            teams.put(t.get("team").asText(), t);
            completedBefore += t.at("/before/completed").asInt();
        }
        assertThat(teams).containsOnlyKeys(lab + "/a", lab + "/b");
        assertThat(completedBefore).isEqualTo(2 * JOBS_PER_TEAM);
        for (JsonNode t : teams.values()) {
            String team = t.get("team").asText();
            double replayed = t.at("/before/deliveredGpuHours").asDouble() * 3600;
            double recorded = t.at("/recorded/deliveredGpuHours").asDouble() * 3600;
            double live = liveCharged.get(team);
            assertThat(t.at("/recorded/completed").asInt()).isEqualTo(JOBS_PER_TEAM);
            assertThat(replayed).as(team + " replayed vs the log's placements").isCloseTo(recorded,
                    org.assertj.core.api.Assertions.within(4.0 * JOBS_PER_TEAM));
            assertThat(replayed).as(team + " replayed vs the accounting-service (live " + live + ")")
                    .isCloseTo(live, org.assertj.core.api.Assertions.within(0.10 * live + 8.0 * JOBS_PER_TEAM));
        }
        JsonNode a = teams.get(lab + "/a");
        JsonNode b = teams.get(lab + "/b");
        // other test classes' roots may share the tree: compare within it (0.5 -> 0.9 and 0.5 -> 0.1 of lab)
        assertThat(a.at("/after/fraction").asDouble() / a.at("/before/fraction").asDouble())
                .isCloseTo(1.8, org.assertj.core.api.Assertions.within(1e-9));
        assertThat(b.at("/after/fraction").asDouble() / b.at("/before/fraction").asDouble())
                .isCloseTo(0.2, org.assertj.core.api.Assertions.within(1e-9));
        assertThat(a.at("/after/waitP90Seconds/small").asDouble()).as(r.out())
                .isLessThan(a.at("/before/waitP90Seconds/small").asDouble());
        assertThat(b.at("/after/waitP50Seconds/small").asDouble()).as(r.out())
                .isGreaterThanOrEqualTo(b.at("/before/waitP50Seconds/small").asDouble());
        assertThat(out.resolve("report.html")).isNotEmptyFile();
        assertThat(table.out()).contains(lab + "/a 1 → 9").contains("→");

        // and cut while work still waits: halfway through the fourth run (one job running, two waiting), where the
        // recorded tree ran a, b, a, b and the proposed one runs a, b, a, a: more share means more delivered
        Collections.sort(completions);
        assertThat(completions).hasSize(2 * JOBS_PER_TEAM);
        Instant cut = completions.get(2).plus(Duration.between(completions.get(2), completions.get(3)).dividedBy(2));
        Result midway = whatif(infra, "--cluster", cluster, "--until", cut.toString(), "--days",
                String.valueOf(Duration.between(started, cut).toMillis() / 86_400_000.0), "--set", lab + "/a=9",
                "-o", "json", "--out", out.resolve("midway").toString());
        assertThat(midway.exit()).as(midway.toString()).isZero();
        JsonNode cutJson = new ObjectMapper().readTree(midway.out());
        assertThat(cutJson.at("/trace/ended").asInt()).as(midway.out()).isEqualTo(3);
        assertThat(cutJson.at("/trace/waitingDeclared").asInt() + cutJson.at("/trace/waitingTeamMedian").asInt()
                + cutJson.at("/trace/waitingOverallMedian").asInt() + cutJson.at("/trace/waitingFallback").asInt())
                .as(midway.out()).isGreaterThanOrEqualTo(1);
        Map<String, JsonNode> cutTeams = new HashMap<>();
        cutJson.get("teams").forEach(t -> cutTeams.put(t.get("team").asText(), t));
        JsonNode cutA = cutTeams.get(lab + "/a");
        JsonNode cutB = cutTeams.get(lab + "/b");
        assertThat(cutA.at("/after/deliveredGpuHours").asDouble()).as(midway.out())
                .isGreaterThan(cutA.at("/before/deliveredGpuHours").asDouble());
        assertThat(cutB.at("/after/deliveredGpuHours").asDouble()).as(midway.out())
                .isLessThan(cutB.at("/before/deliveredGpuHours").asDouble());
    }

    private static Map<String, Object> job(String budget, String cluster) {
        Map<String, Object> job = new HashMap<>();
        job.put("budget", budget);
        job.put("cluster", cluster);
        job.put("replicas", 1);
        job.put("gpusPerReplica", 4);
        job.put("minRuntimeSeconds", 1200);
        job.put("resumable", true);
        job.put("command", List.of("sleep", String.valueOf(SLEEP_SECONDS)));
        return job;
    }

    record Result(int exit, String out, String err) {
        @Override
        public String toString() {
            return "exit " + exit + "\n--- stdout\n" + out + "--- stderr\n" + err;
        }
    }

    /** {@code bin/allot whatif ...} as a person runs it, pointed at the test's broker and registry. */
    private static Result whatif(AllotInfrastructure infra, String... args) throws IOException, InterruptedException {
        Path root = Path.of(System.getProperty("allot.root", "..")).toAbsolutePath().normalize();
        Path jar = root.resolve("simulator/target/allot-simulator.jar");
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException(jar + " is missing: package the simulator first (it comes before e2e-tests)");
        }
        List<String> command = new ArrayList<>(List.of(root.resolve("bin/allot").toString(), "whatif"));
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command);
        pb.environment().put("ALLOT_BOOTSTRAP", infra.bootstrapServers());
        pb.environment().put("ALLOT_REGISTRY_URL", infra.registryUrl());
        Process process = pb.start();
        process.getOutputStream().close();
        CompletableFuture<String> out = CompletableFuture.supplyAsync(() -> read(process.getInputStream()));
        CompletableFuture<String> err = CompletableFuture.supplyAsync(() -> read(process.getErrorStream()));
        if (!process.waitFor(3, TimeUnit.MINUTES)) {
            process.destroyForcibly();
            throw new IllegalStateException("allot whatif did not end in 3 minutes");
        }
        return new Result(process.exitValue(), out.join(), err.join());
    }

    private static String read(java.io.InputStream in) {
        try {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "";
        }
    }
}
