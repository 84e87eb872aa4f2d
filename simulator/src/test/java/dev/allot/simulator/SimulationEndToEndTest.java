package dev.allot.simulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.allot.simulator.trace.MiniJson;
import java.io.PrintStream;
import java.io.ByteArrayOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class SimulationEndToEndTest {

    static final String HEADER = "job_id,team,submit_s,gpus_per_replica,replicas,duration_s,min_runtime_s,resumable,kind\n";

    /** A mixed two-day workload: 3 teams, gangs, unallocated and debug jobs, more demand than GPUs. */
    static String mixedTrace() {
        StringBuilder b = new StringBuilder(HEADER);
        int id = 0;
        String[] teams = {"nlp", "vision", "rl"};
        for (int i = 0; i < 60; i++) {
            String team = teams[i % 3];
            long submit = (i * 2711L) % 150_000;
            int gpr = new int[] {1, 2, 4, 8, 8}[i % 5];
            int replicas = i % 7 == 0 ? 2 : 1;
            long duration = 1800 + (i * 7919L) % 30_000;
            String min = i % 6 == 0 ? "0" : i % 4 == 0 ? "" : Long.toString(900 + (i * 131L) % 7200);
            String resumable = i % 5 == 0 ? "" : Boolean.toString(i % 3 != 0);
            b.append("j").append(++id).append(',').append(team).append(',').append(submit).append(',').append(gpr)
                    .append(',').append(replicas).append(',').append(duration).append(',').append(min).append(',')
                    .append(resumable).append(",train\n");
        }
        for (int i = 0; i < 30; i++) {
            b.append("d").append(i).append(',').append(teams[i % 3]).append(',').append(3000 + i * 5000L)
                    .append(",1,1,900,600,false,debug\n");
        }
        return b.toString();
    }

    static int run(String... args) {
        CommandLine cl = new CommandLine(new SimulateCommand());
        PrintStream quiet = new PrintStream(new ByteArrayOutputStream());
        ((SimulateCommand) cl.getCommand()).stdout = quiet;
        ((SimulateCommand) cl.getCommand()).stderr = quiet;
        cl.setOut(new java.io.PrintWriter(new ByteArrayOutputStream()));
        cl.setErr(new java.io.PrintWriter(new ByteArrayOutputStream()));
        return cl.execute(args);
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> json(Path p) throws Exception {
        return (Map<String, Object>) MiniJson.parse(Files.readString(p));
    }

    @Test
    @SuppressWarnings("unchecked")
    void summaryHasTheIssuesFormAndTheFiguresAddUp(@TempDir Path dir) throws Exception {
        Path trace = dir.resolve("trace.csv");
        Files.writeString(trace, mixedTrace());
        Path out = dir.resolve("out");
        Path events = dir.resolve("events.csv");
        int rc = run("--trace", trace.toString(), "--format", "csv", "--days", "2", "--load", "1.5", "--out",
                out.toString(), "--events", events.toString(), "--debug-per-team-hour", "0.5", "--quiet", "--warmup-days", "0",
                "--variants", "short-contracts");
        assertThat(rc).isZero();

        Map<String, Object> s = json(out.resolve("summary.json"));
        assertThat(s).containsOnlyKeys("scenario", "wallSeconds", "policies");
        Map<String, Object> sc = (Map<String, Object>) s.get("scenario");
        assertThat(sc).containsOnlyKeys("jobs", "teams", "clusterGpus", "days", "offeredLoad", "checkpointOnNotice");
        assertThat(sc.get("checkpointOnNotice")).isEqualTo(0.0);
        assertThat(sc.get("teams")).isEqualTo(3.0);
        assertThat(sc.get("days")).isEqualTo(2.0);
        double jobs = (Double) sc.get("jobs");
        assertThat(jobs).isGreaterThan(90); // 90 trace jobs plus generated debug jobs
        double gpus = (Double) sc.get("clusterGpus");
        assertThat((Double) sc.get("offeredLoad")).isBetween(1.0, 1.5);
        Map<String, Object> policies = (Map<String, Object>) s.get("policies");
        assertThat(new ArrayList<>(policies.keySet())).containsExactly("budget", "priority", "quota", "fairshare-decay");

        Map<String, Object> details = json(out.resolve("details.json"));
        List<Object> runs = (List<Object>) details.get("runs");
        assertThat(runs).hasSize(5); // four policies and one variant
        Map<String, List<String[]>> eventsByPolicy = readEvents(events);
        for (String policy : policies.keySet()) {
            Map<String, Object> m = (Map<String, Object>) policies.get(policy);
            assertThat(m).containsOnlyKeys("occupancy", "owedDeliveredMean", "owedDeliveredMin", "teamsAtLeast95",
                    "unallocatedShare", "waitP50Seconds", "waitP90Seconds", "preemptions", "lostGpuHours",
                    "owedUsefulMean", "owedUsefulMin", "lostGpuHoursAllocated", "lostGpuHoursUnallocated",
                    "lostGpuHoursResumable", "lostGpuHoursNonResumable", "lostShare", "usefulGpuHours",
                    "preemptionsAllocated", "preemptionsUnallocated", "preemptionsPer1000GpuHours",
                    "largeHeadOfLineJobs", "largeHeadOfLineP90Seconds", "largeHeadOfLineMaxSeconds",
                    "largeHeadOfLineAllocatedJobs", "largeHeadOfLineAllocatedP90Seconds", "preemptionCycles");
            goodputAddsUp(policy, m, gpus * 2 * 24);
            for (String f : List.of("occupancy", "owedDeliveredMean", "owedDeliveredMin", "unallocatedShare")) {
                assertThat((Double) m.get(f)).as(policy + " " + f).isBetween(0.0, 1.0);
            }
            assertThat((Double) m.get("owedDeliveredMin")).isLessThanOrEqualTo((Double) m.get("owedDeliveredMean"));
            assertThat((Map<String, Object>) m.get("waitP50Seconds")).containsOnlyKeys("debug", "small", "large",
                    "debugAllocated", "debugUnallocated");
            Map<String, Double> p50 = (Map<String, Double>) m.get("waitP50Seconds");
            Map<String, Double> p90 = (Map<String, Double>) m.get("waitP90Seconds");
            for (String c : List.of("debug", "small", "large", "debugAllocated", "debugUnallocated")) {
                assertThat(p50.get(c)).isLessThanOrEqualTo(p90.get(c));
            }

            // every job is accounted for
            Map<String, Object> run = (Map<String, Object>) runs.stream()
                    .filter(r -> ((Map<String, Object>) r).get("policy").equals(policy)
                            && ((Map<String, Object>) r).get("variant").equals("default"))
                    .findFirst().orElseThrow();
            double accounted = (Double) run.get("finished") + (Double) run.get("runningAtEnd")
                    + (Double) run.get("waitingAtEnd") + (Double) run.get("rejected");
            assertThat(run.get("submitted")).isEqualTo(jobs);
            assertThat(accounted).as(policy).isEqualTo(jobs);

            // the events recompute the occupancy and the preemption count
            List<String[]> ev = eventsByPolicy.get(policy);
            Map<String, Double> placedAt = new HashMap<>();
            double held = 0;
            int preemptions = 0;
            int submits = 0;
            for (String[] e : ev) {
                double t = Double.parseDouble(e[0]);
                int g = Integer.parseInt(e[5]);
                switch (e[4]) {
                    case "submit" -> submits++;
                    case "place" -> assertThat(placedAt.put(e[2], t)).isNull();
                    case "preempt", "requeue", "complete", "cutoff" -> {
                        if (e[4].equals("preempt")) {
                            preemptions++;
                        }
                        held += g * (t - placedAt.remove(e[2]));
                    }
                    default -> { }
                }
            }
            assertThat(placedAt).as("every placement ends").isEmpty();
            assertThat(submits).isEqualTo((int) jobs);
            assertThat(held / (gpus * 2 * 86400)).as(policy + " occupancy from events")
                    .isCloseTo((Double) m.get("occupancy"), within(2e-6));
            assertThat((double) preemptions).isEqualTo(m.get("preemptions"));
        }
        String html = Files.readString(out.resolve("report.html"));
        assertThat(html).contains("<svg", "Side by side", "Contract rule sensitivity", "short-contracts")
                .doesNotContain("http://cdn", "<script");
    }

    /** The goodput fields agree with each other and with the old ones (6-decimal JSON rounding). */
    private static void goodputAddsUp(String policy, Map<String, Object> m, double availableGpuHours) {
        double lost = (Double) m.get("lostGpuHours");
        assertThat((Double) m.get("lostGpuHoursAllocated") + (Double) m.get("lostGpuHoursUnallocated"))
                .as(policy + " allocated + unallocated lost").isCloseTo(lost, within(1e-5));
        assertThat((Double) m.get("lostGpuHoursResumable") + (Double) m.get("lostGpuHoursNonResumable"))
                .as(policy + " resumable + non-resumable lost").isCloseTo(lost, within(1e-5));
        assertThat((Double) m.get("preemptionsAllocated") + (Double) m.get("preemptionsUnallocated"))
                .isEqualTo(m.get("preemptions"));
        assertThat((Double) m.get("lostShare")).isCloseTo(lost / availableGpuHours, within(1e-6));
        double held = (Double) m.get("occupancy") * availableGpuHours;
        assertThat((Double) m.get("usefulGpuHours")).isCloseTo(held - lost, within(held * 1e-5 + 1e-5));
        assertThat((Double) m.get("owedUsefulMean")).isLessThanOrEqualTo((Double) m.get("owedDeliveredMean") + 1e-9);
        assertThat((Double) m.get("owedUsefulMin")).isLessThanOrEqualTo((Double) m.get("owedUsefulMean") + 1e-9);
    }

    /**
     * 8 nodes x 8 GPUs full of team a's eight 8-GPU jobs of {@code aSeconds} from t=0, and at t=10 team b's
     * 64-GPU gang, run for 12 hours under fairshare-decay: its summary entry.
     */
    @SuppressWarnings("unchecked")
    private static Map<String, Object> largeJobBehindEightFullNodes(Path dir, int aSeconds) throws Exception {
        StringBuilder b = new StringBuilder(HEADER);
        for (int i = 0; i < 8; i++) {
            b.append("a").append(i).append(",a,0,8,1,").append(aSeconds).append(",3600,false,train\n");
        }
        b.append("big,b,10,8,8,3600,3600,false,train\n");
        Path trace = dir.resolve("t.csv");
        Files.writeString(trace, b.toString());
        Path out = dir.resolve("out");
        assertThat(run("--trace", trace.toString(), "--format", "csv", "--days", "0.5", "--nodes", "8", "--out",
                out.toString(), "--policies", "fairshare-decay", "--debug-per-team-hour", "0", "--quiet",
                "--warmup-days", "0", "--variants", "none")).isZero();
        return (Map<String, Object>) ((Map<String, Object>) json(out.resolve("summary.json")).get("policies"))
                .get("fairshare-decay");
    }

    @Test
    @SuppressWarnings("unchecked")
    void aLargeJobsHeadOfLineTimeRunsFromItsReservationToItsPlacement(@TempDir Path dir) throws Exception {
        // given 8 nodes x 8 GPUs full of team a's eight 8-GPU one-hour jobs from t=0, and at t=10 team b's
        // 64-GPU gang: it ranks first (b has used nothing), cannot be placed, gets a reservation, and
        // starts when a's jobs end at 3600
        // when
        Map<String, Object> m = largeJobBehindEightFullNodes(dir, 3600);
        // then
        assertThat(m.get("largeHeadOfLineJobs")).isEqualTo(1.0);
        assertThat(m.get("largeHeadOfLineP90Seconds")).isEqualTo(3590.0);
        assertThat(m.get("largeHeadOfLineMaxSeconds")).isEqualTo(3590.0);
        assertThat(m.get("largeHeadOfLineAllocatedJobs")).isEqualTo(1.0); // (the gang is allocated)
        assertThat(m.get("largeHeadOfLineAllocatedP90Seconds")).isEqualTo(3590.0);
        assertThat(((Map<String, Object>) m.get("waitP90Seconds")).get("large")).isEqualTo(3590.0);
    }

    @Test
    @SuppressWarnings("unchecked")
    void aLargeJobNeverPlacedCountsItsHeadOfLineTimeSoFar(@TempDir Path dir) throws Exception {
        // given the same, but a's jobs run past the end of the 12-hour period
        Map<String, Object> m = largeJobBehindEightFullNodes(dir, 90_000);
        assertThat(m.get("largeHeadOfLineJobs")).isEqualTo(1.0);
        assertThat(m.get("largeHeadOfLineMaxSeconds")).isEqualTo(43_200.0 - 10);
    }

    @Test
    @SuppressWarnings("unchecked")
    void onAPreemptingRunTheLostSplitSumsToTheLostTotal(@TempDir Path dir) throws Exception {
        // given the mixed workload at a load that makes the budget policy preempt
        Path trace = dir.resolve("trace.csv");
        Files.writeString(trace, mixedTrace());
        Path out = dir.resolve("out");
        assertThat(run("--trace", trace.toString(), "--format", "csv", "--days", "2", "--load", "2.5", "--out",
                out.toString(), "--policies", "budget", "--quiet", "--warmup-days", "0", "--variants", "none"))
                .isZero();
        Map<String, Object> s = json(out.resolve("summary.json"));
        double gpus = (Double) ((Map<String, Object>) s.get("scenario")).get("clusterGpus");
        Map<String, Object> m = (Map<String, Object>) ((Map<String, Object>) s.get("policies")).get("budget");
        // then it lost work, and the parts add up
        assertThat((Double) m.get("preemptions")).isPositive();
        assertThat((Double) m.get("lostGpuHours")).isPositive();
        goodputAddsUp("budget", m, gpus * 2 * 24);
        // and the per-team losses of details.json add up to the total too
        Map<String, Object> run = (Map<String, Object>) ((List<Object>) json(out.resolve("details.json")).get("runs"))
                .get(0);
        double byTeam = 0;
        for (Object t : (List<Object>) run.get("teams")) {
            byTeam += (Double) ((Map<String, Object>) t).get("lostGpuHours");
        }
        assertThat(byTeam).isCloseTo((Double) m.get("lostGpuHours"), within(1e-4));
    }

    private static Map<String, List<String[]>> readEvents(Path p) throws Exception {
        List<String> lines = Files.readAllLines(p);
        assertThat(lines.get(0)).isEqualTo("time_s,policy,job_id,team,event,gpus,nodes");
        Map<String, List<String[]>> m = new HashMap<>();
        for (String l : lines.subList(1, lines.size())) {
            String[] f = l.split(",", -1);
            assertThat(f).hasSize(7);
            m.computeIfAbsent(f[1], k -> new ArrayList<>()).add(f);
        }
        return m;
    }

    @Test
    @SuppressWarnings("unchecked")
    void aWarmUpIsSimulatedButNotMeasured(@TempDir Path dir) throws Exception {
        Path trace = dir.resolve("trace.csv");
        Files.writeString(trace, mixedTrace());
        Path out = dir.resolve("out");
        Path events = dir.resolve("events.csv");
        assertThat(run("--trace", trace.toString(), "--format", "csv", "--days", "1", "--warmup-days", "0.5",
                "--load", "1.5", "--quiet", "--variants", "none", "--policies", "budget", "--out", out.toString(),
                "--events", events.toString())).isZero();
        Map<String, Object> s = json(out.resolve("summary.json"));
        Map<String, Object> sc = (Map<String, Object>) s.get("scenario");
        assertThat(sc.get("days")).isEqualTo(1.0);
        double gpus = (Double) sc.get("clusterGpus");
        double occupancy = (Double) ((Map<String, Object>) ((Map<String, Object>) s.get("policies")).get("budget"))
                .get("occupancy");
        // recompute over the measured period [0.5 d, 1.5 d) only
        double from = 43_200;
        double to = 129_600;
        Map<String, Double> placedAt = new HashMap<>();
        double held = 0;
        for (String[] e : readEvents(events).get("budget")) {
            double t = Double.parseDouble(e[0]);
            switch (e[4]) {
                case "place" -> placedAt.put(e[2], t);
                case "preempt", "requeue", "complete", "cutoff" -> {
                    double a = Math.max(from, placedAt.remove(e[2]));
                    double b = Math.min(to, t);
                    if (b > a) {
                        held += Integer.parseInt(e[5]) * (b - a);
                    }
                }
                default -> { }
            }
        }
        assertThat(held / (gpus * (to - from))).isCloseTo(occupancy, within(2e-6));
    }

    @Test
    @SuppressWarnings("unchecked")
    void aCoarseQuantumStillAccountsForEveryJob(@TempDir Path dir) throws Exception {
        Path trace = dir.resolve("trace.csv");
        Files.writeString(trace, mixedTrace());
        Path out = dir.resolve("out");
        assertThat(run("--trace", trace.toString(), "--format", "csv", "--days", "2", "--load", "2", "--quiet", "--warmup-days", "0",
                "--variants", "none", "--quantum-seconds", "3600", "--out", out.toString())).isZero();
        double jobs = (Double) ((Map<String, Object>) json(out.resolve("summary.json")).get("scenario")).get("jobs");
        for (Object o : (List<Object>) json(out.resolve("details.json")).get("runs")) {
            Map<String, Object> r = (Map<String, Object>) o;
            assertThat((Double) r.get("finished") + (Double) r.get("runningAtEnd") + (Double) r.get("waitingAtEnd")
                    + (Double) r.get("rejected")).as((String) r.get("policy")).isEqualTo(jobs);
            assertThat(r.get("submitted")).isEqualTo(jobs);
        }
    }

    @Test
    void sameSeedGivesTheSameSummaryApartFromWallSeconds(@TempDir Path dir) throws Exception {
        Path trace = dir.resolve("trace.csv");
        Files.writeString(trace, mixedTrace());
        String[] common = {"--trace", trace.toString(), "--format", "csv", "--days", "2", "--load", "2", "--quiet", "--warmup-days", "0",
            "--seed", "5", "--variants", "none", "--threads", "2"};
        List<String> outs = new ArrayList<>();
        for (String name : List.of("a", "b", "c")) {
            List<String> args = new ArrayList<>(List.of(common));
            args.addAll(List.of("--out", dir.resolve(name).toString()));
            if (name.equals("c")) {
                args.set(args.indexOf("5"), "6");
            }
            assertThat(run(args.toArray(String[]::new))).isZero();
            outs.add(Files.readString(dir.resolve(name).resolve("summary.json"))
                    .replaceAll("\"wallSeconds\": [0-9.]+", "\"wallSeconds\": X"));
        }
        assertThat(outs.get(0)).isEqualTo(outs.get(1));
        assertThat(outs.get(2)).as("another seed draws other debug jobs and contracts").isNotEqualTo(outs.get(0));
    }

    @Test
    @SuppressWarnings("unchecked")
    void budgetBeatsPriorityOnWorstTeamOwedHours(@TempDir Path dir) throws Exception {
        // 4 nodes x 8 GPUs, equal shares. "hog" floods the cluster at t=0 with long 8-GPU jobs; "late"
        // arrives after an hour with a steady stream of 8-GPU jobs. FIFO serves the hog's backlog
        // first; budgets give "late" its half once the hog's protected hour is over.
        StringBuilder b = new StringBuilder(HEADER);
        for (int i = 0; i < 30; i++) {
            b.append("h").append(i).append(",hog,").append(i).append(",8,1,36000,3600,true,train\n");
        }
        for (int i = 0; i < 20; i++) {
            b.append("l").append(i).append(",late,").append(3600 + i * 3600L).append(",8,1,7200,1800,true,train\n");
        }
        Path trace = dir.resolve("t.csv");
        Files.writeString(trace, b.toString());
        Path out = dir.resolve("out");
        assertThat(run("--trace", trace.toString(), "--format", "csv", "--days", "1.5", "--nodes", "4", "--out",
                out.toString(), "--policies", "budget,priority", "--debug-per-team-hour", "0", "--quiet", "--warmup-days", "0",
                "--variants", "none")).isZero();
        Map<String, Object> policies = (Map<String, Object>) json(out.resolve("summary.json")).get("policies");
        double budgetWorst = (Double) ((Map<String, Object>) policies.get("budget")).get("owedDeliveredMin");
        double priorityWorst = (Double) ((Map<String, Object>) policies.get("priority")).get("owedDeliveredMin");
        assertThat(budgetWorst).isGreaterThan(priorityWorst + 0.2);
        assertThat(budgetWorst).isGreaterThan(0.8);
    }
}
