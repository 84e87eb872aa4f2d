package dev.allot.core;

import static dev.allot.core.Fixture.HOUR;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** {@link Scheduler#jobsFinished} charges what {@link Scheduler#jobFinished} one by one charges, over seeded worlds. */
class JobsFinishedTest {

    @Test
    void aBatchOfEndsChargesAndFreesWhatEndsOneByOneDo() {
        for (long seed = 1; seed <= 30; seed++) {
            Random rnd = new Random(seed);
            // given two identical cores: teams of both charge modes running on a cluster
            Fixture one = world(seed);
            Fixture batch = world(seed);
            List<String> running = new ArrayList<>();
            for (JobView j : one.s.jobs()) {
                if (j.state() == JobState.RUNNING) {
                    running.add(j.jobId());
                }
            }
            assertThat(running).as("seed %d runs something", seed).isNotEmpty();
            // when some of them end at increasing times over three hours (across bucket boundaries),
            // some ends repeated or of jobs that do not run
            List<Scheduler.JobEnd> ends = new ArrayList<>();
            long t = one.now;
            for (String id : running) {
                if (rnd.nextInt(3) > 0) {
                    t += rnd.nextInt((int) (HOUR / 10));
                    ends.add(new Scheduler.JobEnd(t, id));
                    if (rnd.nextInt(10) == 0) {
                        ends.add(new Scheduler.JobEnd(t, id));
                    }
                }
            }
            ends.add(new Scheduler.JobEnd(t + 1, "no-such-job"));
            for (Scheduler.JobEnd e : ends) {
                one.s.jobFinished(e.atMillis(), e.jobId());
            }
            batch.s.jobsFinished(ends);
            // then the same jobs ended, the core's time is the last end, and every account's window
            // usage is the same up to rounding, an hour later too (charged at the rates left)
            assertThat(batch.s.nowMillis()).isEqualTo(one.s.nowMillis());
            for (JobView j : one.s.jobs()) {
                assertThat(batch.s.job(j.jobId()).orElseThrow().state()).as("seed %d job %s", seed, j.jobId())
                        .isEqualTo(j.state());
            }
            sameUsage(seed, one, batch);
            one.s.advanceTo(t + HOUR);
            batch.s.advanceTo(t + HOUR);
            sameUsage(seed, one, batch);
        }
    }

    private static void sameUsage(long seed, Fixture one, Fixture batch) {
        var a = one.s.usage("c1");
        var b = batch.s.usage("c1");
        assertThat(b.keySet()).isEqualTo(a.keySet());
        for (String account : a.keySet()) {
            assertThat(b.get(account).chargedGpuSeconds()).as("seed %d %s charged", seed, account)
                    .isCloseTo(a.get(account).chargedGpuSeconds(), within(1e-6));
            assertThat(b.get(account).unallocatedGpuSeconds()).as("seed %d %s unallocated", seed, account)
                    .isCloseTo(a.get(account).unallocatedGpuSeconds(), within(1e-6));
        }
        assertThat(a.values().stream().mapToDouble(u -> u.chargedGpuSeconds() + u.unallocatedGpuSeconds()).sum())
                .as("seed %d charges something", seed).isPositive();
    }

    private static Fixture world(long seed) {
        Random rnd = new Random(seed);
        Fixture f = new Fixture().teams("a", "b", "c", "d").nodes("c1", 6, 8);
        f.at(f.now + rnd.nextInt((int) HOUR)); // not on a bucket boundary
        for (int i = 0; i < 40; i++) {
            String team = "abcd".substring(i % 4, i % 4 + 1);
            f.submit("j" + i, team, 1 + rnd.nextInt(2), 1 + rnd.nextInt(4), rnd.nextBoolean() ? 0 : HOUR, true);
        }
        f.schedule();
        f.advance(HOUR / 3);
        f.schedule();
        return f;
    }
}
