package dev.allot.core.properties;

import dev.allot.core.Decision;
import dev.allot.core.Goodput;
import dev.allot.core.JobRequest;
import dev.allot.core.JobState;
import dev.allot.core.JobView;
import dev.allot.core.NodeSpec;
import dev.allot.core.NodeView;
import dev.allot.core.Scheduler;
import dev.allot.core.SchedulerConfig;
import dev.allot.core.ordering.DebugLane;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * A random but seeded world: a cluster of nodes of mixed sizes, a budget tree of random depth and
 * shares, and a workload of gangs with random contracts, finishes, checkpoints, cancels, drains,
 * node losses and returns, and budget changes. Every choice depends only on the seed and on the
 * core's (deterministic) state, so two runs with one seed must give identical decisions.
 */
final class ScenarioDriver {
    static final long MIN = 60_000L;
    static final long HOUR = 60 * MIN;
    private static final long[] MIN_RUNTIMES = {0, 0, 5 * MIN, 15 * MIN, HOUR, 2 * HOUR, 8 * HOUR, 9 * HOUR};

    Scheduler s;
    Invariants inv;
    /** The step before which the core is swapped for its copy ({@link Scheduler#copy()}), or -1. */
    private int copyAt = -1;
    /** What differed between the core and its copy when it was made (null: nothing). */
    String copyDiff;
    /** How many decisions were taken before the copy. */
    int decisionsAtCopy = -1;
    /** How many decisions were taken up to the end of the first pass of the copy. */
    int decisionsAfterCopiedPass = -1;
    final List<Decision> decisions = new ArrayList<>();
    /** After every pass, each waiting job's place as explainWaiting gives it. */
    final List<String> places = new ArrayList<>();
    private final Random rnd;
    private final List<String> leaves = new ArrayList<>();
    private final List<String> accounts = new ArrayList<>();
    private final List<String> nodeIds = new ArrayList<>();
    private final int maxGpus;
    private long now = 1_700_000_000_000L;
    private int seq;

    ScenarioDriver(long seed) {
        this(seed, true);
    }

    /** @param walkShortcuts see {@link SchedulerConfig#walkShortcuts()} */
    ScenarioDriver(long seed, boolean walkShortcuts) {
        this(seed, walkShortcuts, Goodput.defaults());
    }

    /** @param goodput see {@link SchedulerConfig#goodput()} */
    ScenarioDriver(long seed, boolean walkShortcuts, Goodput goodput) {
        // one node in three held for the debug lane, so small worlds exercise the reserve too
        s = new Scheduler(SchedulerConfig.defaults().withWindow(6 * HOUR, 15 * MIN)
                .withDebugLane(new DebugLane(15 * MIN, 8, 8, 3)).withWalkShortcuts(walkShortcuts).withGoodput(goodput));
        inv = new Invariants(s);
        rnd = new Random(seed);
        // budget tree: root, 1-3 programs, 1-3 teams each, sometimes a sub-team level
        s.defineBudget(now, "org", null, 1);
        accounts.add("org");
        int programs = 1 + rnd.nextInt(3);
        for (int p = 0; p < programs; p++) {
            String prog = "p" + p;
            s.defineBudget(now, prog, "org", 1 + rnd.nextInt(5));
            accounts.add(prog);
            int teams = 1 + rnd.nextInt(3);
            for (int t = 0; t < teams; t++) {
                String team = prog + "t" + t;
                s.defineBudget(now, team, prog, 1 + rnd.nextInt(5));
                accounts.add(team);
                if (rnd.nextInt(4) == 0) {
                    for (int u = 0; u < 2; u++) {
                        String sub = team + "u" + u;
                        s.defineBudget(now, sub, team, 1 + rnd.nextInt(3));
                        accounts.add(sub);
                        leaves.add(sub);
                    }
                } else {
                    leaves.add(team);
                }
            }
        }
        int nodes = 2 + rnd.nextInt(7);
        int[] sizes = {2, 4, 8, 8};
        int max = 0;
        for (int i = 0; i < nodes; i++) {
            int g = sizes[rnd.nextInt(sizes.length)];
            max = Math.max(max, g);
            String id = String.format("n%02d", i);
            nodeIds.add(id);
            s.registerNode(now, new NodeSpec("c1", id, g));
        }
        maxGpus = max;
    }

    /**
     * From step {@code step} on the world runs on a copy of its core: the same seed must then give
     * the same decisions as the original core (invariants are no longer checked: their shadow
     * belongs to the original).
     */
    ScenarioDriver copyingAt(int step) {
        copyAt = step;
        return this;
    }

    /** Runs {@code steps} rounds of random events followed by a pass, checking invariants after each. */
    ScenarioDriver run(int steps) {
        for (int step = 0; step < steps; step++) {
            if (step == copyAt) {
                Scheduler c = s.copy();
                copyDiff = describe(s).equals(describe(c)) ? null : describe(s) + "\n---- copy:\n" + describe(c);
                s = c;
                inv = null;
                decisionsAtCopy = decisions.size();
            }
            now += (1 + rnd.nextInt(30)) * MIN;
            int events = rnd.nextInt(6);
            for (int e = 0; e < events; e++) {
                event();
            }
            if (inv != null) {
                inv.beforePass();
            }
            List<Decision> d = s.schedule(now);
            if (inv != null) {
                inv.afterPass(now, d);
            }
            decisions.addAll(d);
            if (step == copyAt) {
                decisionsAfterCopiedPass = decisions.size();
            }
            for (JobView j : s.waiting("c1")) {
                s.explainWaiting(j.jobId()).ifPresent(w -> places.add(w.jobId() + " at " + w.position() + " "
                        + w.hold() + " for " + w.reservedFor() + " behind " + w.accountsAhead()));
            }
        }
        // let every minimum runtime pass with nothing new arriving: drained nodes end empty
        now += 9 * HOUR;
        if (inv != null) {
            inv.beforePass();
        }
        List<Decision> d = s.schedule(now);
        if (inv != null) {
            inv.afterPass(now, d);
        }
        decisions.addAll(d);
        for (NodeView n : s.nodes()) {
            if (n.draining() && !n.lost()) {
                org.assertj.core.api.Assertions.assertThat(n.jobIds()).as("drained node " + n.nodeId()).isEmpty();
            }
        }
        return this;
    }

    private void event() {
        int k = rnd.nextInt(100);
        if (k < 45) {
            submit();
        } else if (k < 70) {
            JobView j = pick(JobState.RUNNING);
            if (j != null) {
                s.jobFinished(now, j.jobId());
                released(j.jobId());
            }
        } else if (k < 78) {
            JobView j = pick(JobState.RUNNING);
            if (j != null) {
                s.jobCheckpointed(now, j.jobId());
            }
        } else if (k < 82) {
            JobView j = rnd.nextBoolean() ? pick(JobState.WAITING) : pick(JobState.RUNNING);
            if (j != null) {
                s.cancel(now, j.jobId());
                released(j.jobId());
            }
        } else if (k < 87) {
            String n = nodeIds.get(rnd.nextInt(nodeIds.size()));
            if (rnd.nextInt(3) == 0) {
                s.undrainNode(now, n);
            } else {
                s.drainNode(now, n);
            }
        } else if (k < 91) {
            String n = nodeIds.get(rnd.nextInt(nodeIds.size()));
            NodeView node = s.node(n).orElseThrow();
            if (node.lost()) {
                s.registerNode(now, node.spec());
            } else {
                for (String id : node.jobIds()) {
                    released(id);
                }
                s.nodeLost(now, n);
            }
        } else if (k < 93) {
            // a node falls silent for a while, or is heard from again
            String n = nodeIds.get(rnd.nextInt(nodeIds.size()));
            if (s.node(n).orElseThrow().unreachable()) {
                s.nodeReachable(now, n);
            } else {
                s.nodeUnreachable(now, n);
            }
        } else if (k < 96) {
            String a = accounts.get(1 + rnd.nextInt(accounts.size() - 1));
            s.defineBudget(now, a, s.budgets().parent(a), 1 + rnd.nextInt(5));
        } else {
            s.advanceTo(now);
        }
    }

    /** Everything the facade shows of a core's state (jobs, nodes, reservations, usage). */
    static String describe(Scheduler c) {
        StringBuilder b = new StringBuilder().append(c.nowMillis()).append('\n');
        for (JobView j : c.jobs()) {
            if (j.state() == JobState.RUNNING || j.state() == JobState.WAITING) {
                b.append(j.jobId()).append(' ').append(j.state()).append(' ').append(j.placement()).append(' ')
                        .append(j.placedAtMillis()).append(' ').append(j.queuedSinceMillis()).append(' ')
                        .append(j.protectedUntilMillis()).append(' ').append(j.lastCheckpointMillis()).append(' ')
                        .append(j.requeues()).append(' ').append(j.inDebugLane()).append(' ')
                        .append(j instanceof dev.allot.core.state.Job x ? x.guardedUntilMillis() : 0).append('\n');
            }
        }
        for (NodeView n : c.nodes()) {
            b.append(n.nodeId()).append(' ').append(n.epoch()).append(' ').append(n.freeGpus()).append(' ')
                    .append(n.draining()).append(' ').append(n.lost()).append(' ').append(n.unreachable()).append(' ')
                    .append(n.reservedFor()).append(' ')
                    .append(n.debugReserve()).append(' ').append(n.jobIds()).append('\n');
        }
        for (String cl : c.clusters()) {
            b.append(c.reservations(cl)).append('\n');
            for (String a : c.budgets().roots()) {
                b.append(c.usage(cl, a)).append('\n');
            }
        }
        return b.toString();
    }

    private void released(String jobId) {
        if (inv != null) {
            inv.released(jobId);
        }
    }

    private void submit() {
        String id = String.format("j%04d", seq++);
        String account = leaves.get(rnd.nextInt(leaves.size()));
        int replicas = 1 + (rnd.nextInt(4) == 0 ? rnd.nextInt(3) : 0);
        int gpus = 1 + rnd.nextInt(maxGpus);
        long min = MIN_RUNTIMES[rnd.nextInt(MIN_RUNTIMES.length)];
        long expected = rnd.nextInt(3) == 0 ? (1 + rnd.nextInt(240)) * MIN : -1;
        s.submit(now, new JobRequest(id, account, "c1", replicas, gpus, min, rnd.nextBoolean(), rnd.nextInt(3),
                now, expected));
    }

    private JobView pick(JobState state) {
        List<JobView> l = s.jobs().stream().filter(j -> j.state() == state).toList();
        return l.isEmpty() ? null : l.get(rnd.nextInt(l.size()));
    }
}
