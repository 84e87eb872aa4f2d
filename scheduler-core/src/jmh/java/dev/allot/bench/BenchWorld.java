package dev.allot.bench;

import dev.allot.core.Decision;
import dev.allot.core.Goodput;
import dev.allot.core.JobRequest;
import dev.allot.core.JobState;
import dev.allot.core.JobView;
import dev.allot.core.NodeSpec;
import dev.allot.core.Scheduler;
import dev.allot.core.policy.BudgetPolicy;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * The benchmark's world: 1,024 nodes x 8 GPUs, a 4-level tree of 506 accounts (org, 5 programs,
 * 25 projects, 475 teams), 5,000 running jobs filling every GPU (10% unallocated, the rest with
 * minimum runtimes of 15 min, 2 h or 8 h) placed an hour ago, and 10,000 waiting jobs of mixed
 * shapes (80% single replica, 20% gangs of 2-8 replicas; 1-8 GPUs per replica; 20% unallocated).
 */
public final class BenchWorld {
    private static final java.lang.management.ThreadMXBean CPU = java.lang.management.ManagementFactory.getThreadMXBean();
    static final long T0 = 1_700_000_000_000L;
    static final long MIN = 60_000L;
    static final long HOUR = 60 * MIN;

    /** {@code -Dbench.rules=none|previous}: see {@link #policy}. */
    private static final String RULES = System.getProperty("bench.rules", "default");

    public final Scheduler s = new Scheduler(config(), policy());

    /**
     * {@code -Dbench.lane=off|unheld} to measure without the debug lane or without its held nodes;
     * {@code -Dbench.shortcuts=off} to walk every waiting job.
     */
    private static dev.allot.core.SchedulerConfig config() {
        var c = dev.allot.core.SchedulerConfig.defaults();
        c = switch (RULES) {
            case "none" -> c.withGoodput(Goodput.none());
            case "previous" -> c.withGoodput(Goodput.defaults().withLaneDisplacingAllocated(true).withHeldReservations(false));
            default -> c;
        };
        if (System.getProperty("bench.shortcuts", "on").equals("off")) {
            c = c.withWalkShortcuts(false); // every waiting job visited: to check that shortcuts change nothing
        }
        return switch (System.getProperty("bench.lane", "default")) {
            case "off" -> c.withDebugLane(dev.allot.core.ordering.DebugLane.off());
            case "unheld" -> c.withDebugLane(new dev.allot.core.ordering.DebugLane(15 * MIN, 8, 8, 0));
            default -> c;
        };
    }

    /**
     * {@code -Dbench.rules=none|previous} to measure without the goodput rules, or with them as they
     * were before the share rule, held reservations and lane jobs kept off allocated work were the
     * defaults (the share rule off in both).
     */
    private static BudgetPolicy policy() {
        return RULES.equals("default") ? new BudgetPolicy()
                : new BudgetPolicy(new BudgetPolicy().margin(), BudgetPolicy.DEFAULT_PROTECTED_RATIO, 0);
    }
    public long now = T0;
    private final Random rnd;
    private final List<String> teams = new ArrayList<>();
    private int seq;
    /** Running job ids, oldest first, for "finish one" benchmarks. */
    public final ArrayDeque<String> running = new ArrayDeque<>();

    public BenchWorld(long seed) {
        rnd = new Random(seed);
        s.defineBudget(now, "org", null, 1);
        for (int p = 0; p < 5; p++) {
            String prog = "p" + p;
            s.defineBudget(now, prog, "org", 1 + rnd.nextInt(4));
            for (int q = 0; q < 5; q++) {
                String proj = prog + "q" + q;
                s.defineBudget(now, proj, prog, 1 + rnd.nextInt(4));
                for (int t = 0; t < 19; t++) {
                    String team = proj + "t" + t;
                    s.defineBudget(now, team, proj, 1 + rnd.nextInt(4));
                    teams.add(team);
                }
            }
        }
        for (int i = 0; i < 1024; i++) {
            s.registerNode(now, new NodeSpec("c1", String.format("n%04d", i), 8));
        }
        // 5,000 running jobs, 8,192 GPUs: largest first so best fit packs every node full
        fill(173, 8);
        fill(327, 4);
        fill(1000, 2);
        fill(3500, 1);
        now += HOUR;
        for (int i = 0; i < 10_000; i++) {
            submitRandom();
        }
    }

    private void fill(int count, int gpus) {
        for (int i = 0; i < count; i++) {
            int k = rnd.nextInt(10);
            long min = k == 0 ? 0 : k <= 3 ? 15 * MIN : k <= 6 ? 2 * HOUR : 8 * HOUR;
            s.submit(now, JobRequest.of(id(), team(), "c1", 1, gpus, min, rnd.nextBoolean(), now));
        }
        track(s.schedule(now));
    }

    public void submitRandom() {
        boolean gang = rnd.nextInt(5) == 0;
        int replicas = gang ? 2 + rnd.nextInt(7) : 1;
        int gpus = gang ? 8 : 1 + rnd.nextInt(8);
        int k = rnd.nextInt(5);
        long min = k == 0 ? 0 : k == 1 ? 15 * MIN : k == 2 ? HOUR : k == 3 ? 4 * HOUR : 8 * HOUR;
        s.submit(now, new JobRequest(id(), team(), "c1", replicas, gpus, min, rnd.nextBoolean(), rnd.nextInt(3), now,
                -1));
    }

    /** Keeps the running list in step with decisions. */
    public void track(List<Decision> ds) {
        for (Decision d : ds) {
            if (d instanceof Decision.Place p) {
                running.addLast(p.jobId());
            }
        }
    }

    /** Finishes the oldest job that still runs. */
    public void finishOne() {
        while (!running.isEmpty()) {
            String id = running.pollFirst();
            JobView j = s.job(id).orElseThrow();
            if (j.state() == JobState.RUNNING) {
                s.jobFinished(now, id);
                return;
            }
        }
    }

    public long runningCount() {
        return s.jobs().stream().filter(j -> j.state() == JobState.RUNNING).count();
    }

    public long waitingCount() {
        return s.jobs().stream().filter(j -> j.state() == JobState.WAITING).count();
    }

    private String id() {
        return String.format("j%06d", seq++);
    }

    private String team() {
        return teams.get(rnd.nextInt(teams.size()));
    }

    /**
     * Quick look without JMH, in thread CPU time (steadier than wall time on a loaded machine):
     * four fresh worlds' full passes, then {@code args[0]} (default 2,000) rounds of submit+pass and
     * finish+pass, with their average thread CPU time.
     */
    public static void main(String[] args) {
        BenchWorld w = null;
        List<Decision> d = null;
        long a = 0;
        long b = 0;
        for (int round = 0; round < 4; round++) {
            long c = CPU.getCurrentThreadCpuTime();
            w = new BenchWorld(1);
            System.out.printf("build %.0f ms; running %d, waiting %d%n", (CPU.getCurrentThreadCpuTime() - c) / 1e6,
                    w.runningCount(), w.waitingCount());
            a = CPU.getCurrentThreadCpuTime();
            d = w.s.schedule(w.now);
            b = CPU.getCurrentThreadCpuTime();
            System.out.printf("round %d full pass: %.1f ms%n", round, (b - a) / 1e6);
        }
        w.track(d);
        System.out.printf("full pass: %.1f ms, %d decisions; running %d, waiting %d%n", (b - a) / 1e6, d.size(),
                w.runningCount(), w.waitingCount());
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 2000;
        long totalSubmit = 0;
        long totalInc = 0;
        for (int i = 0; i < rounds; i++) {
            totalSubmit += timedRound(w, w::submitRandom, "submit+pass", i);
            totalInc += timedRound(w, w::finishOne, "finish+pass", i);
        }
        System.out.printf("submit+pass average %.3f ms CPU, finish+pass average %.3f ms CPU (%d rounds)%n",
                totalSubmit / rounds / 1e6, totalInc / rounds / 1e6, rounds);
    }

    /** One second on, the event, then a pass: its thread CPU time; printed every 200 rounds. */
    private static long timedRound(BenchWorld w, Runnable event, String what, int i) {
        w.now += 1000;
        long a = CPU.getCurrentThreadCpuTime();
        event.run();
        List<Decision> d = w.s.schedule(w.now);
        long b = CPU.getCurrentThreadCpuTime();
        w.track(d);
        if (i % 200 == 0) {
            System.out.printf("%s %.3f ms (%d decisions)%n", what, (b - a) / 1e6, d.size());
        }
        return b - a;
    }
}
