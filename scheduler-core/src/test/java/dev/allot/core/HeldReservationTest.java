package dev.allot.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.core.reservation.Reservation;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Goodput.heldReservations: a reservation whose holder may preempt stays with its job until it starts. */
class HeldReservationTest {
    private static final long MIN = 60_000L;
    private static final long HOUR = 60 * MIN;

    /** Every GPU protected (b's for 1 h, a's own for 2 h); a's 2 x 8 job blocked and reserved; then c, ranked first, blocked too. */
    private static Fixture world(boolean held) {
        SchedulerConfig config = SchedulerConfig.defaults()
                .withGoodput(Goodput.defaults().withHeldReservations(held));
        Fixture f = new Fixture(config).teams("a", "b", "c").nodes("c1", 5, 8);
        for (int i = 0; i < 4; i++) {
            f.submit("b" + i, "b", 1, 8, HOUR, true);
        }
        f.submit("a0", "a", 1, 8, 2 * HOUR, true);
        f.schedule();
        f.advance(MIN);
        f.submit("big", "a", 2, 8, HOUR, true);
        f.schedule();
        assertThat(f.s.reservations("c1")).extracting(Reservation::jobId).containsExactly("big");
        f.advance(10 * MIN);
        f.submit("c-job", "c", 1, 8, HOUR, true);
        f.schedule();
        return f;
    }

    @Test
    void aBetterRankedBlockedJobDoesNotTakeAHeldReservation() {
        Fixture f = world(true);
        assertThat(f.s.reservations("c1")).extracting(Reservation::jobId).containsExactly("big");
    }

    @Test
    void withoutItTheFirstRankedBlockedJobTakesTheReservationOver() {
        Fixture f = world(false);
        assertThat(f.s.reservations("c1")).extracting(Reservation::jobId).containsExactly("c-job");
    }

    @Test
    void theHolderStartsWhenItsNodesProtectedWindowsEnd() {
        Fixture f = world(true);
        f.advance(HOUR); // b's windows have ended; the work they would lose is under the loss cap
        f.schedule();
        assertThat(f.state("big")).isEqualTo(JobState.RUNNING);
    }
    /**
     * a's own 8-GPU jobs fill four nodes, protected for the longest window (8 h) and declared to end
     * 19-20 h ahead: its 2 x 8 gang may displace none of them, nor may b for 8 h.
     */
    private static Fixture ownWorkEverywhere() {
        Fixture f = new Fixture().teams("a", "b").nodes("c1", 4, 8);
        long[] ends = {20 * HOUR, 20 * HOUR, 19 * HOUR, 19 * HOUR};
        for (int i = 0; i < ends.length; i++) {
            f.submit(JobRequest.of("a" + i, "a", "c1", 1, 8, 8 * HOUR, true, f.now).withExpectedDuration(ends[i]));
        }
        f.schedule();
        f.advance(MIN);
        f.submit("big", "a", 2, 8, HOUR, true);
        f.schedule();
        return f;
    }

    @Test
    void aHoldingThatMissesTheLongestWindowStaysWhereItIsUnlessOtherNodesKeepIt() {
        // given the gang holding the two nodes that free up soonest, 19 h ahead
        Fixture f = ownWorkEverywhere();
        List<String> held = f.s.reservations("c1").get(0).nodeIds();
        assertThat(held).containsExactlyInAnyOrder(f.nodeOf("a2"), f.nodeOf("a3"));
        // when the other two nodes' jobs end one after the other and a's next jobs, declared for 15 h,
        // take them: those nodes would now free up sooner, but 15 h is beyond the longest protected
        // window (8 h) too
        for (int i = 0; i < 2; i++) {
            f.advance(HOUR);
            f.s.jobFinished(f.now, "a" + i);
            f.submit(JobRequest.of("a" + (4 + i), "a", "c1", 1, 8, 8 * HOUR, true, f.now).withExpectedDuration(15 * HOUR));
            f.schedule();
            assertThat(f.state("a" + (4 + i))).isEqualTo(JobState.RUNNING);
        }
        f.advance(MIN);
        f.schedule();
        // then it keeps its nodes: moving gives up what they freed, and each pass would find another
        // set a little sooner (on the shared trace a holder moved every few minutes and never started)
        assertThat(f.s.reservations("c1")).singleElement().satisfies(r -> {
            assertThat(r.jobId()).isEqualTo("big");
            assertThat(r.nodeIds()).containsExactlyInAnyOrderElementsOf(held);
        });
    }

    @Test
    void aJobThatIsNotResumableDoesNotBackfillAHoldingDueBeyondTheLossCap() {
        // given the gang holding two nodes due 19 h ahead, and one of them freed early
        Fixture f = ownWorkEverywhere();
        String freed = f.nodeOf("a3");
        f.advance(HOUR);
        f.s.jobFinished(f.now, "a3");
        // when b's jobs of one node wait, each protected for an hour: one resumable, one not
        f.submit("b-resumable", "b", 1, 8, HOUR, true);
        f.submit("b-not", "b", 1, 8, HOUR, false);
        f.schedule();
        // then only the resumable one may use the held node: by the due time the loss cap (2 h of a
        // run) would spare the other, and the gang could not take its node back
        assertThat(f.state("b-resumable")).isEqualTo(JobState.RUNNING);
        assertThat(f.nodeOf("b-resumable")).isEqualTo(freed);
        assertThat(f.state("b-not")).isEqualTo(JobState.WAITING);
    }

    @Test
    void aGuardThatLapsesCountsFromItsEndNotAsNever() {
        // given a holder's reservation planned over a node whose job is guarded from displacement for
        // an hour (it was placed by displacing others): its due time is the guard's end, a known time
        Fixture f = new Fixture().teams("a", "b", "c").nodes("c1", 2, 8);
        f.submit("b0", "b", 1, 8, 15 * MIN, true);
        f.submit("b1", "b", 1, 8, 15 * MIN, true);
        f.schedule();
        f.advance(30 * MIN);
        f.submit("c0", "c", 1, 8, 15 * MIN, true); // c (nothing used) displaces b on one node, and is guarded for an hour
        List<Decision> d = f.schedule();
        assertThat(Fixture.only(d, Decision.Preempt.class)).hasSize(1);
        assertThat(f.state("c0")).isEqualTo(JobState.RUNNING);
        long guardEnds = f.now + Goodput.defaults().noThrashMillis();
        f.advance(MIN);
        f.submit("big", "a", 2, 8, HOUR, true);
        f.schedule();
        assertThat(f.s.reservations("c1")).singleElement()
                .satisfies(r -> assertThat(r.dueAtMillis()).isEqualTo(guardEnds));
    }
}
