package dev.allot.accounting.book;

import dev.allot.schemas.AccountDemand;
import dev.allot.schemas.ChargeMode;
import dev.allot.schemas.NodeRegistered;
import dev.allot.schemas.NodeStatus;
import dev.allot.schemas.UsageReported;

/**
 * Maps events to facts and applies the rules a fact must meet; anything else is rejected with a
 * reason (it goes to the dead letters, never dropped silently). Shared by the stream and the replay.
 */
public final class Intake {

    /** Longest interval one event may cover; longer is a broken reporter, not usage. */
    public static final long MAX_INTERVAL_MILLIS = 24 * Hours.HOUR;

    private Intake() {
    }

    /** A fact, a reason to reject, or nothing to do (an event that does not concern accounting). */
    public record Result(Fact fact, String rejection) {
        static final Result IGNORED = new Result(null, null);

        public boolean rejected() {
            return rejection != null;
        }

        public boolean ignored() {
            return fact == null && rejection == null;
        }
    }

    public record Source(String topic, int partition, long offset, byte[] key, byte[] value) {
    }

    public static Result usage(UsageReported u, Source s) {
        String problem = names(u.getCluster(), u.getAccount());
        if (problem == null) {
            problem = interval(u.getIntervalStart().toEpochMilli(), u.getIntervalEnd().toEpochMilli());
        }
        double gs = u.getGpuSeconds();
        if (problem == null && !(Double.isFinite(gs) && gs >= 0)) {
            problem = "gpuSeconds must be a finite number >= 0: " + gs;
        }
        if (problem == null) {
            double seconds = (u.getIntervalEnd().toEpochMilli() - u.getIntervalStart().toEpochMilli()) / 1000.0;
            double most = Math.max(0, u.getGpus()) * seconds;
            if (gs > most * (1 + 1e-9) + 1e-6) {
                problem = "gpuSeconds " + gs + " exceed gpus x interval (" + u.getGpus() + " x " + seconds + " s)";
            }
        }
        if (problem != null) {
            return new Result(null, "invalid usage: " + problem);
        }
        return new Result(new Fact(Fact.Kind.USAGE, u.getCluster(), u.getAccount(),
                u.getIntervalStart().toEpochMilli(), u.getIntervalEnd().toEpochMilli(), gs,
                u.getChargeMode() != ChargeMode.UNALLOCATED, u.getJobId(), u.getNodeId(), u.getGpus(),
                s.topic(), s.partition(), s.offset()), null);
    }

    public static Result demand(AccountDemand d, Source s) {
        String problem = names(d.getCluster(), d.getAccount());
        if (problem == null) {
            problem = interval(d.getIntervalStart().toEpochMilli(), d.getIntervalEnd().toEpochMilli());
        }
        if (problem == null && !(Double.isFinite(d.getDemandedGpus()) && d.getDemandedGpus() >= 0)) {
            problem = "demandedGpus must be a finite number >= 0: " + d.getDemandedGpus();
        }
        if (problem != null) {
            return new Result(null, "invalid demand: " + problem);
        }
        return new Result(new Fact(Fact.Kind.DEMAND, d.getCluster(), d.getAccount(),
                d.getIntervalStart().toEpochMilli(), d.getIntervalEnd().toEpochMilli(), d.getDemandedGpus(), false,
                null, null, 0, s.topic(), s.partition(), s.offset()), null);
    }

    /** Only registrations matter: a node's GPU count (latest registration per node) makes cluster capacity. */
    public static Result node(NodeStatus n, Source s) {
        if (!(n.getPayload() instanceof NodeRegistered r)) {
            return Result.IGNORED;
        }
        String problem = names(r.getCluster(), "-");
        if (problem == null && r.getGpuCount() < 0) {
            problem = "gpuCount < 0: " + r.getGpuCount();
        }
        if (problem == null && (n.getNodeId() == null || n.getNodeId().isBlank())) {
            problem = "blank nodeId";
        }
        if (problem != null) {
            return new Result(null, "invalid node registration: " + problem);
        }
        long at = n.getOccurredAt().toEpochMilli();
        return new Result(new Fact(Fact.Kind.NODE, r.getCluster(), "", at, at, 0, false, null, n.getNodeId(),
                r.getGpuCount(), s.topic(), s.partition(), s.offset()), null);
    }

    private static String names(String cluster, String account) {
        if (cluster == null || cluster.isBlank()) {
            return "blank cluster";
        }
        if (cluster.indexOf('/') >= 0 || cluster.indexOf(RowKey.SEP) >= 0) {
            return "cluster contains '/': " + cluster;
        }
        if (account == null || account.isBlank()) {
            return "blank account";
        }
        if (account.indexOf(RowKey.SEP) >= 0) {
            return "account contains a control character";
        }
        return null;
    }

    private static String interval(long start, long end) {
        if (end < start) {
            return "interval ends before it starts";
        }
        if (end - start > MAX_INTERVAL_MILLIS) {
            return "interval longer than 24 h";
        }
        return null;
    }
}
