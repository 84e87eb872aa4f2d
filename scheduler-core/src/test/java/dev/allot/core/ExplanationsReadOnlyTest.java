package dev.allot.core;

import static dev.allot.core.Fixture.HOUR;
import static dev.allot.core.Fixture.MIN;
import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.core.explain.WaitingExplanation;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Asking why a job waits or runs changes nothing: not the answer, not the next decisions. */
class ExplanationsReadOnlyTest {

    /** A full cluster with a queue long enough that the walk stops early and skips accounts. */
    private static Fixture busy() {
        Fixture f = new Fixture().teams("a", "b", "c").nodes("c1", 2, 8);
        f.submit("run-a", "a", 1, 8, 2 * HOUR, true).submit("run-b", "b", 1, 8, 2 * HOUR, true);
        f.schedule();
        for (int i = 0; i < 150; i++) {
            f.submit("w" + i, List.of("a", "b", "c").get(i % 3), 1 + i % 2, 4, HOUR, true);
        }
        f.advance(MIN);
        f.schedule();
        return f;
    }

    private static List<Optional<WaitingExplanation>> explainAll(Fixture f) {
        return f.s.waiting("c1").stream().map(j -> f.s.explainWaiting(j.jobId())).toList();
    }

    @Test
    void givenJobsTheWalkDidNotReach_whenExplainedTwice_thenTheAnswersAreTheSame() {
        // given a pass that stopped before most of the queue
        Fixture f = busy();
        // when every waiting job is explained twice, and a running one too
        List<Optional<WaitingExplanation>> first = explainAll(f);
        List<Optional<WaitingExplanation>> second = explainAll(f);
        var running = f.s.explainRunning("run-a");
        // then the answers agree, and each waiting job has its own place
        assertThat(second).isEqualTo(first);
        assertThat(first).allMatch(Optional::isPresent);
        // after the stop, or in the part of an account skipped once its first jobs failed
        assertThat(first).anyMatch(e -> e.get().missing().contains("jobs ranked ahead found nothing")
                || e.get().missing().contains("such nodes free and nothing it may preempt"));
        assertThat(first.stream().map(e -> e.get().position()).distinct().count()).isEqualTo(first.size());
        assertThat(f.s.explainRunning("run-a")).isEqualTo(running);
    }

    @Test
    void givenTwoEqualWorlds_whenOnlyOneIsAskedForExplanations_thenBothDecideTheSame() {
        // given two worlds built the same way
        Fixture asked = busy();
        Fixture quiet = busy();
        // when one is asked about every job between passes, as time runs on and jobs end
        for (int round = 0; round < 3; round++) {
            explainAll(asked);
            asked.s.explainRunning("run-a");
            asked.advance(HOUR);
            quiet.advance(HOUR);
            asked.s.jobFinished(asked.now, "run-b");
            quiet.s.jobFinished(quiet.now, "run-b");
            // then their next passes decide the same, reasons included
            assertThat(asked.schedule().toString()).isEqualTo(quiet.schedule().toString());
        }
    }
}
