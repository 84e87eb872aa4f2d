package dev.allot.edge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class LogThrottleTest {

    @Test
    void givenAFloodWithinOneWindow_whenEachEventAsks_thenOnlyTheFirstOnesGetALine() {
        LogThrottle throttle = new LogThrottle(3, 1_000);
        List<Boolean> logged = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            logged.add(throttle.next(100 + i).log());
        }
        assertThat(logged).containsExactly(true, true, true, false, false, false, false, false, false, false);
    }

    @Test
    void givenSuppressedEvents_whenTheNextWindowBegins_thenItsFirstLineCarriesTheCountOnce() {
        LogThrottle throttle = new LogThrottle(2, 1_000);
        for (int i = 0; i < 7; i++) {
            assertThat(throttle.next(i).suppressed()).isZero();
        }
        LogThrottle.Turn first = throttle.next(1_000);
        assertThat(first.log()).isTrue();
        assertThat(first.suppressed()).isEqualTo(5);
        assertThat(throttle.suppressedLine(first, "dead letters"))
                .isEqualTo("5 more dead letters not logged one by one (at most 2 lines per 1 s)");
        assertThat(throttle.next(1_001).suppressed()).isZero();
        // a quiet window after a flood: the count is not repeated
        assertThat(throttle.next(5_000)).isEqualTo(new LogThrottle.Turn(true, 0));
    }

    @Test
    void givenARateBelowTheLimit_whenEventsComeOverManyWindows_thenEveryOneGetsALine() {
        LogThrottle throttle = LogThrottle.perMinute();
        for (long t = 0; t < 3_600_000; t += 7_000) {
            assertThat(throttle.next(t)).isEqualTo(new LogThrottle.Turn(true, 0));
        }
    }

    @Test
    void givenAFlood_whenLogged_thenTheLinesAreTheFirstOnesThenTheCountThenTheNextWindowsFirst() {
        LogThrottle throttle = new LogThrottle(1, 1_000);
        List<String> lines = new ArrayList<>();
        int[] built = new int[1];
        for (int i = 0; i < 4; i++) {
            int n = i;
            throttle.log(i, "dead letters", lines::add, () -> {
                built[0]++;
                return "letter " + n;
            });
        }
        throttle.log(2_000, "dead letters", lines::add, () -> "letter 4");
        assertThat(lines).containsExactly("letter 0", "3 more dead letters not logged one by one (at most 1 lines per 1 s)",
                "letter 4");
        assertThat(built[0]).as("lines not logged are not built").isEqualTo(1);
    }

    @Test
    void givenNonsense_whenBuilt_thenRefused() {
        assertThatThrownBy(() -> new LogThrottle(0, 1_000)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new LogThrottle(1, 0)).isInstanceOf(IllegalArgumentException.class);
    }
}
