package dev.allot.core.properties;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * {@code Scheduler.copy()} is the live core's state (what start-time estimates rest on): a random
 * world swapped onto a copy of its core halfway through shows the same jobs, nodes, reservations
 * and usage as the original at that moment, and its first pass, after the same random events,
 * takes the same decisions as the original's (seeds 1-30).
 *
 * <p>Not asserted, because it does not hold on every world: the same decisions to the end. Of seeds
 * 1-60 it does on 58; on seed 8 a preemption the original decides 16 decisions after the
 * copy is not decided by the copy, and on seed 37 one waiting job's hold reads MISSING_RESOURCE
 * instead of NO_SUCH_SHAPE (same decisions). Some state a pass keeps for the next is not copied yet.
 */
class CoreCopyTest {
    private static final int SEEDS = 30;
    private static final int STEPS = 60;

    @TestFactory
    Stream<DynamicTest> aCopyIsTheLiveCoreAndDecidesItsNextPassTheSame() {
        return LongStream.rangeClosed(1, SEEDS).mapToObj(seed -> DynamicTest.dynamicTest("seed " + seed, () -> {
            ScenarioDriver live = new ScenarioDriver(seed).run(STEPS);
            ScenarioDriver copied = new ScenarioDriver(seed).copyingAt(STEPS / 2).run(STEPS);
            assertThat(copied.copyDiff).as("the copy as made, seed " + seed).isNull();
            assertThat(copied.decisionsAfterCopiedPass).isGreaterThanOrEqualTo(copied.decisionsAtCopy);
            assertThat(copied.decisions.subList(0, copied.decisionsAfterCopiedPass)).as("decisions, seed " + seed)
                    .containsExactlyElementsOf(live.decisions.subList(0, copied.decisionsAfterCopiedPass));
        }));
    }
}
