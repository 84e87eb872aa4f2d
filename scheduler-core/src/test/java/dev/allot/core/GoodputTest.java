package dev.allot.core;

import static dev.allot.core.Fixture.HOUR;
import static dev.allot.core.Fixture.MIN;
import static dev.allot.core.Fixture.T0;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The goodput rules: preempt only when it pays, lose the least work when it must, never thrash. */
class GoodputTest {

    /** Team "hog" has used the cluster for hours (ratio far above "fresh"'s 0). */
    private static Fixture hogAndFresh(SchedulerConfig config, int nodes) {
        return new Fixture(config).teams("fresh", "hog").nodes("c1", nodes, 8);
    }

    private static SchedulerConfig noReservations() {
        return SchedulerConfig.defaults().withMaxReservationsPerCluster(0);
    }

    @Test
    void theVictimIsTheJobThatLosesLeastWorkNotTheOneWithFewestGpus() {
        // given hog's node: a resumable 4-GPU job that has just checkpointed, a non-resumable 2-GPU
        // job 90 minutes into its run, and a protected 2-GPU job
        Fixture f = hogAndFresh(noReservations(), 1);
        f.submit("hog-resumable", "hog", 1, 4, MIN, true);
        f.submit("hog-restarts", "hog", 1, 2, MIN, false);
        f.submit("hog-protected", "hog", 1, 2, 8 * HOUR, true);
        f.schedule();
        f.advance(90 * MIN);
        f.s.jobCheckpointed(f.now, "hog-resumable");
        // when fresh needs 2 GPUs
        f.submit("fresh-job", "fresh", 1, 2, HOUR, true);
        List<Decision> d = f.schedule();
        // then the resumable job goes (4 GPUs x a restart) rather than the one that would start over
        // (2 GPUs x 90 minutes), though it holds more GPUs
        List<Decision.Preempt> p = Fixture.only(d, Decision.Preempt.class);
        assertThat(p).extracting(Decision.Preempt::jobId).containsExactly("hog-resumable");
        assertThat(p.get(0).lostGpuSeconds()).isZero();
        assertThat(f.state("hog-restarts")).isEqualTo(JobState.RUNNING);
        assertThat(f.state("fresh-job")).isEqualTo(JobState.RUNNING);
    }

    @Test
    void aPreemptionThatWouldThrowAwayMoreThanTheCapDoesNotHappen() {
        // given hog's non-resumable job 3 hours into its run (cap: 2 h per GPU)
        Fixture f = hogAndFresh(noReservations(), 1);
        f.submit("hog-restarts", "hog", 1, 8, MIN, false);
        f.schedule();
        f.advance(3 * HOUR);
        // when fresh asks for the node
        f.submit("fresh-job", "fresh", 1, 8, HOUR, true);
        // then it waits: three hours of eight GPUs are not thrown away
        assertThat(Fixture.only(f.schedule(), Decision.Preempt.class)).isEmpty();
        assertThat(f.state("hog-restarts")).isEqualTo(JobState.RUNNING);

        // and without the cap the same world preempts it
        Fixture uncapped = hogAndFresh(noReservations().withGoodput(Goodput.defaults().withMaxLossPerGpu(0)), 1);
        uncapped.submit("hog-restarts", "hog", 1, 8, MIN, false);
        uncapped.schedule();
        uncapped.advance(3 * HOUR);
        uncapped.submit("fresh-job", "fresh", 1, 8, HOUR, true);
        assertThat(Fixture.only(uncapped.schedule(), Decision.Preempt.class)).extracting(Decision.Preempt::jobId)
                .containsExactly("hog-restarts");
    }

    @Test
    void twoAccountsDoNotDisplaceEachOtherBackAndForth() {
        // given a's protected job on one node and b's unallocated job on the other
        Fixture f = new Fixture(noReservations()).teams("a", "b").nodes("c1", 2, 8);
        f.submit("a-long", "a", 1, 8, 8 * HOUR, true);
        f.submit("b-free", "b", 1, 8, 0, true);
        f.schedule();
        // when a's allocated job displaces b's work, and b's allocated job arrives within the hour
        f.advance(MIN);
        f.submit("a-job", "a", 1, 8, MIN, true);
        Decision.Preempt p = Fixture.only(f.schedule(), Decision.Preempt.class).get(0);
        assertThat(p.jobId()).isEqualTo("b-free");
        f.advance(30 * MIN);
        f.submit("b-job", "b", 1, 8, MIN, true);
        // then b may not displace a's job, though a's ratio is far above b's, until the hour is over
        assertThat(Fixture.only(f.schedule(), Decision.Preempt.class)).isEmpty();
        assertThat(f.state("b-job")).isEqualTo(JobState.WAITING);
        f.advance(31 * MIN);
        assertThat(Fixture.only(f.schedule(), Decision.Preempt.class)).extracting(Decision.Preempt::jobId)
                .containsExactly("a-job");
        assertThat(f.state("b-job")).isEqualTo(JobState.RUNNING);
    }

    @Test
    void unallocatedWorkKeepsOffNodesAWaitingAllocatedJobWillClaim() {
        // given a node with 4 free GPUs and an allocated job waiting for the whole node
        Fixture f = hogAndFresh(noReservations(), 1);
        f.submit("hog-job", "hog", 1, 4, 8 * HOUR, true);
        f.schedule();
        f.submit("fresh-job", "fresh", 1, 8, HOUR, true);
        f.schedule();
        // when unallocated work that fits the 4 free GPUs arrives
        f.submit("free", "fresh", 1, 4, 0, true);
        f.schedule();
        // then it waits rather than run until the allocated job throws it away
        assertThat(f.state("free")).isEqualTo(JobState.WAITING);
        assertThat(f.s.explainWaiting("free").orElseThrow().reason()).isNotBlank();

        // and once no allocated work waits, it runs in the free GPUs
        f.s.cancel(f.now, "fresh-job");
        f.schedule();
        assertThat(f.state("free")).isEqualTo(JobState.RUNNING);

        // with the rule off it runs beside the backlog
        Fixture beside = hogAndFresh(noReservations()
                .withGoodput(Goodput.defaults().withUnallocatedBesideBacklog(true)), 1);
        beside.submit("hog-job", "hog", 1, 4, 8 * HOUR, true);
        beside.submit("fresh-job", "fresh", 1, 8, HOUR, true);
        beside.submit("free", "fresh", 1, 4, 0, true);
        beside.schedule();
        assertThat(beside.state("free")).isEqualTo(JobState.RUNNING);
    }

    @Test
    void aFailedSearchOfABetterRankedJobDoesNotBlockAnotherSubtreesJob() {
        // given two subtrees: X (x1) at ratio 0.5 and Y at 0.55, whose y1 is at 0.1 and y2 at 1.0;
        // y2's job fills the only node, past its protected window
        Scheduler s = new Scheduler(noReservations().withUsageFeed(UsageFeed.USAGE_RECORDS));
        Fixture f = new Fixture(s);
        f.budget("X", null, 1).budget("Y", null, 1).budget("x1", "X", 1).budget("y1", "Y", 1).budget("y2", "Y", 1);
        f.nodes("c1", 1, 8);
        f.submit("y2-job", "y2", 1, 8, MIN, true);
        f.schedule();
        f.at(T0 + HOUR);
        s.advanceTo(f.now);
        // 1 h on 8 GPUs: X and Y are entitled 14,400 GPU-seconds each, y1 and y2 7,200
        s.recordUsage(new UsageRecord("x1", "c1", T0, T0 + HOUR, 7_200, true));
        s.recordUsage(new UsageRecord("y1", "c1", T0, T0 + HOUR, 720, true));
        s.recordUsage(new UsageRecord("y2", "c1", T0, T0 + HOUR, 7_200, true));
        s.jobCheckpointed(f.now, "y2-job");
        assertThat(s.usage("c1", "X").ratio()).isCloseTo(0.5, org.assertj.core.data.Offset.offset(1e-9));
        assertThat(s.usage("c1", "Y").ratio()).isCloseTo(0.55, org.assertj.core.data.Offset.offset(1e-9));
        // when x1's job (ranked first: 0.5 < 0.55, but within the margin of Y) and y1's job of the same shape wait
        f.submit("x1-job", "x1", 1, 8, HOUR, true);
        f.submit("y1-job", "y1", 1, 8, HOUR, true);
        List<Decision> d = f.schedule();
        // then x1's job may not displace y2's, but y1's may (0.1 vs 1.0 where their paths meet)
        assertThat(Fixture.only(d, Decision.Preempt.class)).extracting(Decision.Preempt::jobId, Decision.Preempt::preemptorJobId)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("y2-job", "y1-job"));
        assertThat(f.state("x1-job")).isEqualTo(JobState.WAITING);
        assertThat(f.state("y1-job")).isEqualTo(JobState.RUNNING);
    }

    @Test
    void oneVictimThatLosesLessGoesRatherThanSeveralThatEachLoseLess() {
        // given one 8-GPU node running b's four 1-GPU jobs (checkpointed 1 h ago) and b's 4-GPU job
        // (placed 30 min ago): each small job loses ~1 GPU-hour, less than the 4-GPU job's 2, but the
        // four together lose twice as much
        Fixture f = new Fixture().teams("a", "b").nodes("c1", 1, 8);
        for (int i = 0; i < 4; i++) {
            f.submit("b-small" + i, "b", 1, 1, HOUR, true);
        }
        f.schedule();
        f.at(T0 + 2 * HOUR);
        for (int i = 0; i < 4; i++) {
            f.s.jobCheckpointed(f.now, "b-small" + i);
        }
        f.at(T0 + 2 * HOUR + 30 * MIN);
        f.submit("b-four", "b", 1, 4, 15 * MIN, true);
        f.schedule();
        // when, an hour after the checkpoints, a's 4-GPU job waits (a has used nothing: b's work may go)
        f.at(T0 + 3 * HOUR);
        f.submit("a-job", "a", 1, 4, HOUR, true);
        List<Decision.Preempt> p = Fixture.only(f.schedule(), Decision.Preempt.class);
        // then the one 4-GPU job is displaced, not the four small ones
        assertThat(p).extracting(Decision.Preempt::jobId).containsExactly("b-four");
        assertThat(f.state("a-job")).isEqualTo(JobState.RUNNING);
    }

    @Test
    void aVictimMadeNeedlessByLaterOnesKeepsRunning() {
        // given one 8-GPU node running b's 1-GPU job and two 3-GPU jobs, one GPU free
        Fixture f = new Fixture().teams("a", "b").nodes("c1", 1, 8);
        f.submit("b-one", "b", 1, 1, HOUR, true);
        f.schedule();
        f.at(T0 + HOUR);
        f.submit("b-three1", "b", 1, 3, HOUR, true);
        f.submit("b-three2", "b", 1, 3, HOUR, true);
        f.schedule();
        f.at(T0 + 2 * HOUR + 30 * MIN);
        f.s.jobCheckpointed(f.now, "b-one");
        f.at(T0 + 3 * HOUR);
        f.s.jobCheckpointed(f.now, "b-three1");
        f.s.jobCheckpointed(f.now, "b-three2");
        // when, 30 min later, a's 7-GPU job waits: in victim order b-one (about 1 GPU-hour lost) comes
        // first and each 3-GPU job (about 1.75) after it; the two 3-GPU jobs alone make room
        f.at(T0 + 3 * HOUR + 30 * MIN);
        f.submit("a-job", "a", 1, 7, HOUR, true);
        List<Decision.Preempt> p = Fixture.only(f.schedule(), Decision.Preempt.class);
        // then b-one, needless once they go, keeps running
        assertThat(p).extracting(Decision.Preempt::jobId).containsExactlyInAnyOrder("b-three1", "b-three2");
        assertThat(f.state("b-one")).isEqualTo(JobState.RUNNING);
        assertThat(f.state("a-job")).isEqualTo(JobState.RUNNING);
    }

    @Test
    void theHolderOfAReservationDisplacesWorkPastItsWindowOnItsNodesWhateverTheRatios() {
        // given three nodes filled by b's jobs, two protected for 2 h, one for 8 h; a's ratio is
        // higher than b's, so a may not displace b by the margin
        Fixture f = bFillsNodes("b-short1", 2 * HOUR, "b-short2", 2 * HOUR, "b-long", 8 * HOUR);
        Scheduler s = f.s;
        // when a's gang of two whole nodes waits: it ranks first among blocked jobs (b waits for nothing)
        f.submit("a-job", "a", 2, 8, HOUR, true);
        List<Decision> d = f.schedule();
        Decision.Reserve r = Fixture.only(d, Decision.Reserve.class).get(0);
        assertThat(r.nodeIds()).containsExactlyInAnyOrder(f.nodeOf("b-short1"), f.nodeOf("b-short2"));
        assertThat(r.dueAtMillis()).isEqualTo(T0 + 2 * HOUR);
        // then at the end of the short jobs' protected windows a's job displaces them on the nodes it holds
        f.at(T0 + 2 * HOUR);
        s.jobCheckpointed(f.now, "b-short1");
        s.jobCheckpointed(f.now, "b-short2");
        List<Decision.Preempt> p = Fixture.only(f.schedule(), Decision.Preempt.class);
        assertThat(p).extracting(Decision.Preempt::jobId).containsExactlyInAnyOrder("b-short1", "b-short2");
        assertThat(p.get(0).reason()).contains("holds the reservation");
        assertThat(f.state("a-job")).isEqualTo(JobState.RUNNING);
        assertThat(f.state("b-long")).isEqualTo(JobState.RUNNING);
    }

    @Test
    void aJobOfOneNodeHoldingAReservationHasNoRightToDisplace() {
        // given two nodes filled by b's jobs, one protected for 2 h, one for 8 h; a's ratio is higher than b's
        // (no usage is recorded after the first hour: the ratios stay as they are)
        Fixture f = bFillsNodes("b-short", 2 * HOUR, "b-long", 8 * HOUR);
        Scheduler s = f.s;
        // when a's one-node job waits, ranked first among blocked jobs
        f.submit("a-job", "a", 1, 8, HOUR, true);
        Decision.Reserve r = Fixture.only(f.schedule(), Decision.Reserve.class).get(0);
        assertThat(r.jobId()).isEqualTo("a-job");
        // then once both of b's protected windows are over it displaces neither: one node's end comes
        // by itself, and by the ratios a may not take b's work
        f.at(T0 + 9 * HOUR);
        s.jobCheckpointed(f.now, "b-short");
        s.jobCheckpointed(f.now, "b-long");
        assertThat(Fixture.only(f.schedule(), Decision.Preempt.class)).isEmpty();
        assertThat(f.state("a-job")).isEqualTo(JobState.WAITING);
        assertThat(f.state("b-short")).isEqualTo(JobState.RUNNING);
        assertThat(f.state("b-long")).isEqualTo(JobState.RUNNING);
    }

    @Test
    void aBetterRankedJobStartsOnTheFreeGpusOfALowerRankedOneNodeJobsReservation() {
        // given one 8-GPU node running b's 6-GPU job, protected for 8 h, and b's next 6-GPU job
        // waiting with the node reserved (it ranks first among blocked jobs)
        Fixture f = new Fixture().teams("a", "b").nodes("c1", 1, 8);
        f.submit("b-run", "b", 1, 6, 8 * HOUR, true);
        f.schedule();
        f.advance(MIN);
        f.submit("b-next", "b", 1, 6, HOUR, true);
        f.schedule();
        assertThat(f.s.reservations("c1")).extracting(r -> r.jobId()).containsExactly("b-next");
        // when a (nothing used: ranked first) submits a 2-GPU job with an hour's protection, which
        // b-next, a one-node holder, could not displace when due
        f.advance(MIN);
        f.submit("a-job", "a", 1, 2, HOUR, true);
        List<Decision> d = f.schedule();
        // then it starts on the node's 2 free GPUs in this pass, not a pass later after taking the
        // reservation over
        assertThat(Fixture.only(d, Decision.Place.class)).extracting(Decision.Place::jobId).containsExactly("a-job");
        assertThat(f.state("a-job")).isEqualTo(JobState.RUNNING);
        assertThat(f.state("b-next")).isEqualTo(JobState.WAITING);
    }

    /**
     * One 8-GPU node per b job given (id, minimum runtime), each running from T0; an hour in, a has
     * used twice b's GPU-hours: ranked after b, and beyond the margin.
     */
    private static Fixture bFillsNodes(Object... jobsAndWindows) {
        Scheduler s = new Scheduler(SchedulerConfig.defaults().withUsageFeed(UsageFeed.USAGE_RECORDS));
        Fixture f = new Fixture(s).teams("a", "b").nodes("c1", jobsAndWindows.length / 2, 8);
        for (int i = 0; i < jobsAndWindows.length; i += 2) {
            f.submit((String) jobsAndWindows[i], "b", 1, 8, (Long) jobsAndWindows[i + 1], true);
        }
        f.schedule();
        f.at(T0 + HOUR);
        s.advanceTo(f.now);
        s.recordUsage(new UsageRecord("a", "c1", T0, T0 + HOUR, 16 * 3600, true));
        s.recordUsage(new UsageRecord("b", "c1", T0, T0 + HOUR, 8 * 3600, true));
        return f;
    }
}
