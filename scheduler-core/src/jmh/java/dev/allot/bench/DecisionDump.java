package dev.allot.bench;

import dev.allot.core.Decision;
import dev.allot.core.JobView;
import dev.allot.core.reservation.Reservation;
import java.io.PrintStream;
import java.util.List;

/**
 * Prints what the core decides in the benchmark world, so a change meant to keep decisions can be
 * checked by comparing two dumps: the full pass, then {@code args[0]} (default 600) rounds of
 * submit+pass and finish+pass; every decision with its reason, and every 50 rounds each waiting
 * job's explanation (position, hold, missing resource, reservation) and the reservations.
 *
 * <pre>java -cp scheduler-core/target/scheduler-core-benchmarks.jar dev.allot.bench.DecisionDump 600 &gt; dump.txt</pre>
 */
public final class DecisionDump {
    private DecisionDump() {
    }

    public static void main(String[] args) {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 600;
        PrintStream out = new PrintStream(new java.io.BufferedOutputStream(System.out, 1 << 16), false);
        BenchWorld w = new BenchWorld(1);
        decisions(out, "full", w, w.s.schedule(w.now));
        explanations(out, w);
        for (int i = 1; i <= rounds; i++) {
            w.now += 1000;
            w.submitRandom();
            decisions(out, "submit " + i, w, w.s.schedule(w.now));
            w.now += 1000;
            w.finishOne();
            decisions(out, "finish " + i, w, w.s.schedule(w.now));
            if (i % 50 == 0) {
                explanations(out, w);
            }
        }
        out.flush();
    }

    private static void decisions(PrintStream out, String step, BenchWorld w, List<Decision> ds) {
        w.track(ds);
        out.println("# " + step + " at " + w.now + ": " + ds.size() + " decisions");
        for (Decision d : ds) {
            out.println(d.getClass().getSimpleName() + " " + d.subject() + " | " + describe(d) + " | " + d.reason());
        }
    }

    private static String describe(Decision d) {
        return switch (d) {
            case Decision.Place p -> p.account() + " " + p.cluster() + " " + p.replicas() + " " + p.chargeMode() + " "
                    + p.protectedUntilMillis();
            case Decision.Preempt p -> p.account() + " by " + p.preemptorJobId() + " " + p.preemptorAccount() + " "
                    + p.victimMode() + " " + p.victimRatio() + " " + p.preemptorRatio() + " " + p.keptSubmitTime();
            case Decision.Requeue r -> r.account() + " " + r.nodeId();
            case Decision.Reject r -> r.account();
            case Decision.ReleaseForDrain r -> r.account() + " " + r.nodeId() + " " + r.keptSubmitTime();
            case Decision.NodeDrained n -> n.cluster();
            case Decision.Reserve r -> r.cluster() + " " + r.nodeIds() + " " + r.dueAtMillis();
        };
    }

    private static void explanations(PrintStream out, BenchWorld w) {
        out.println("## waiting at " + w.now);
        for (JobView j : w.s.waiting("c1")) {
            w.s.explainWaiting(j.jobId()).ifPresent(e -> out.println(e.jobId() + " " + e.position() + " " + e.hold() + " "
                    + e.accountsAhead() + " [" + e.missing() + "] " + e.reservedFor() + " " + e.passAtMillis() + " | "
                    + e.reason()));
        }
        for (Reservation r : w.s.reservations("c1")) {
            out.println("reservation " + r);
        }
    }
}
