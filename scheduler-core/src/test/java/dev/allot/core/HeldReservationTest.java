package dev.allot.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.core.reservation.Reservation;
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
}
