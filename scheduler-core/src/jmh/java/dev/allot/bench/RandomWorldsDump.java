package dev.allot.bench;

import dev.allot.core.Decision;
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
 * Prints what the core decides in {@code args[0]} (default 40) small seeded random worlds that
 * {@link DecisionDump} does not reach: drains, node losses and re-registrations, checkpoints,
 * cancels, budget changes, the debug lane with held nodes, two reservations. Every decision with
 * its reason and, every 10 steps, every explanation, the reservations and each node's holdings.
 * Two builds meant to decide the same must print the same bytes.
 *
 * <pre>java -cp scheduler-core/target/scheduler-core-benchmarks.jar dev.allot.bench.RandomWorldsDump 40 &gt; worlds.txt</pre>
 */
public final class RandomWorldsDump {
    private RandomWorldsDump() {
    }

    public static void main(String[] args) {
        StringBuilder out = new StringBuilder();
        int worlds = args.length > 0 ? Integer.parseInt(args[0]) : 40;
        for (int seed = 1; seed <= worlds; seed++) {
            Random r = new Random(seed);
            long H = 3_600_000L;
            SchedulerConfig cfg = SchedulerConfig.defaults().withDebugLane(new DebugLane(15 * 60_000L, 8, 8, 3))
                    .withMaxReservationsPerCluster(1 + r.nextInt(2));
            Scheduler s = new Scheduler(cfg);
            long t = 1_700_000_000_000L;
            String[] teams = {"a", "b", "c", "d"};
            s.defineBudget(t, "org", null, 1);
            for (String x : teams) s.defineBudget(t, x, "org", 1 + r.nextInt(3));
            int nodes = 12 + r.nextInt(10);
            for (int i = 0; i < nodes; i++) s.registerNode(t, new NodeSpec("c1", String.format("n%02d", i), r.nextBoolean() ? 8 : 4));
            List<String> ids = new ArrayList<>();
            for (int step = 0; step < 150; step++) {
                t += r.nextInt(20) * 60_000L;
                int e = r.nextInt(20);
                String node = String.format("n%02d", r.nextInt(nodes));
                if (e < 8) {
                    String id = "j" + seed + "-" + step;
                    ids.add(id);
                    long min = r.nextInt(4) == 0 ? 0 : (r.nextInt(3) == 0 ? 10 * 60_000L : (1 + r.nextInt(4)) * H);
                    long dur = r.nextBoolean() ? -1 : r.nextInt(5) * H;
                    s.submit(t, new JobRequest(id, teams[r.nextInt(4)], "c1", 1 + r.nextInt(3), 1 + r.nextInt(8), min,
                            r.nextBoolean(), r.nextInt(3), t, dur));
                } else if (e < 11 && !ids.isEmpty()) {
                    s.jobFinished(t, ids.get(r.nextInt(ids.size())));
                } else if (e < 12 && !ids.isEmpty()) {
                    s.cancel(t, ids.get(r.nextInt(ids.size())));
                } else if (e < 13 && !ids.isEmpty()) {
                    s.jobCheckpointed(t, ids.get(r.nextInt(ids.size())));
                } else if (e < 14) {
                    s.drainNode(t, node);
                } else if (e < 15) {
                    s.undrainNode(t, node);
                } else if (e < 16) {
                    s.nodeLost(t, node);
                } else if (e < 17) {
                    out.append("epoch ").append(s.registerNode(t, new NodeSpec("c1", node, 8))).append('\n');
                } else if (e < 18) {
                    s.defineBudget(t, teams[r.nextInt(4)], "org", 1 + r.nextInt(4));
                }
                for (Decision d : s.schedule(t)) out.append(d).append('\n');
                if (step % 10 == 0) {
                    for (JobView j : s.waiting("c1")) out.append(s.explainWaiting(j.jobId())).append('\n');
                    for (JobView j : s.jobs()) if (j.state() == JobState.RUNNING) out.append(s.explainRunning(j.jobId())).append('\n');
                    out.append(s.reservations("c1")).append(' ').append(s.usage("c1", "a")).append('\n');
                    for (NodeView n : s.nodes()) out.append(n.nodeId()).append(n.jobIds()).append(n.freeGpus()).append(n.debugReserve()).append(n.reservedFor()).append(' ');
                    out.append('\n');
                }
            }
        }
        System.out.print(out);
        System.out.flush();
    }
}
