package dev.allot.core;

import java.util.ArrayList;
import java.util.List;

/** Small given/when/then helper over a Scheduler. */
final class Fixture {
    static final long T0 = 1_700_000_000_000L;
    static final long MIN = 60_000L;
    static final long HOUR = 60 * MIN;

    final Scheduler s;
    final List<Decision> all = new ArrayList<>();
    long now = T0;

    Fixture() {
        this(SchedulerConfig.defaults());
    }

    Fixture(SchedulerConfig config) {
        this.s = new Scheduler(config);
    }

    Fixture(Scheduler s) {
        this.s = s;
    }

    /** org with teams of equal share. */
    Fixture teams(String... teams) {
        s.defineBudget(now, "org", null, 1);
        for (String t : teams) {
            s.defineBudget(now, t, "org", 1);
        }
        return this;
    }

    Fixture budget(String account, String parent, double share) {
        s.defineBudget(now, account, parent, share);
        return this;
    }

    Fixture nodes(String cluster, int count, int gpus) {
        int existing = (int) s.nodes().stream().filter(n -> n.cluster().equals(cluster)).count();
        for (int i = 0; i < count; i++) {
            s.registerNode(now, new NodeSpec(cluster, String.format("%s-n%03d", cluster, existing + i), gpus));
        }
        return this;
    }

    Fixture submit(String id, String account, int replicas, int gpus, long minRuntime, boolean resumable) {
        s.submit(now, JobRequest.of(id, account, "c1", replicas, gpus, minRuntime, resumable, now));
        return this;
    }

    Fixture submit(JobRequest r) {
        s.submit(now, r);
        return this;
    }

    List<Decision> schedule() {
        List<Decision> d = s.schedule(now);
        all.addAll(d);
        return d;
    }

    Fixture at(long t) {
        now = t;
        return this;
    }

    Fixture advance(long millis) {
        now += millis;
        return this;
    }

    JobState state(String id) {
        return s.job(id).orElseThrow().state();
    }

    /** The node of the job's first replica. */
    String nodeOf(String id) {
        return s.job(id).orElseThrow().placement().get(0).nodeId();
    }

    static <T extends Decision> List<T> only(List<Decision> ds, Class<T> type) {
        return ds.stream().filter(type::isInstance).map(type::cast).toList();
    }
}
