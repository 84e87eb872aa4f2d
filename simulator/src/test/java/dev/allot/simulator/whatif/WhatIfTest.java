package dev.allot.simulator.whatif;

import static dev.allot.simulator.whatif.Records.at;
import static dev.allot.simulator.whatif.Records.completed;
import static dev.allot.simulator.whatif.Records.defined;
import static dev.allot.simulator.whatif.Records.placed;
import static dev.allot.simulator.whatif.Records.registered;
import static dev.allot.simulator.whatif.Records.submitted;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.allot.core.metrics.JobClass;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Two teams with equal shares queue 6 whole-node jobs each on one node of 4 GPUs; the recorded hour (and a minute) ran 3 of each,
 * alternating. The replay of the tree as recorded gives each team what it got; giving one team 9 times the other's
 * share moves delivery to it.
 */
class WhatIfTest {

    LogTrace.Trace trace;

    @BeforeEach
    void anHourOfAlternatingJobs() {
        LogTrace log = new LogTrace();
        log.accept(registered("n1", "c", 4, 0));
        log.accept(defined("lab", null, 1, 0));
        log.accept(defined("lab/a", "lab", 1, 0));
        log.accept(defined("lab/b", "lab", 1, 0));
        for (String team : List.of("a", "b")) {
            for (int i = 0; i < 6; i++) {
                log.accept(submitted(team + i, "lab/" + team, "c", 1, 4, 1200, true, null, 0)); // not debug-shaped
            }
        }
        for (int slot = 0; slot < 6; slot++) {
            String id = (slot % 2 == 0 ? "a" : "b") + slot / 2;
            String team = "lab/" + id.charAt(0);
            log.accept(placed(id, team, "c", slot * 600));
            log.accept(completed(id, slot * 600 + 600));
        }
        trace = log.build("c", at(0).toEpochMilli(), at(3660).toEpochMilli());
    }

    @Test
    void givenTheRecordedTree_whenReplayed_thenEachTeamGetsWhatItGotLive() {
        WhatIf.Outcome o = WhatIf.run(trace, 3660 / 86400.0, trace.budgets(), "budget", WhatIf.Settings.defaults());

        for (String team : List.of("lab/a", "lab/b")) {
            double recorded = trace.recorded().get(team).deliveredGpuSeconds / 3600.0;
            assertThat(recorded).isEqualTo(2.0);
            // within one job (4 GPUs x 600 s = 0.67 GPU-h): who goes first at a tie is the core's choice
            assertThat(o.before().teams().get(team).deliveredGpuHours()).as(team).isCloseTo(recorded, within(0.67));
        }
        assertThat(o.before().teams().get("lab/a").completed() + o.before().teams().get("lab/b").completed())
                .isEqualTo(6);
        assertThat(o.before().teams().get("lab/a").jobs().get(JobClass.SMALL)).isEqualTo(6);
    }

    @Test
    void givenMoreShareForOneTeam_whenReplayed_thenThatTeamGetsMoreAndWaitsLessAndTheOtherLess() {
        ShareChanges changes = ShareChanges.parse(List.of("lab/a=9"), null);

        WhatIf.Outcome o = WhatIf.run(trace, 3660 / 86400.0, changes.applyTo(trace.budgets()), "budget",
                WhatIf.Settings.defaults());

        WhatIf.TeamFigures aBefore = o.before().teams().get("lab/a");
        WhatIf.TeamFigures aAfter = o.after().teams().get("lab/a");
        WhatIf.TeamFigures bBefore = o.before().teams().get("lab/b");
        WhatIf.TeamFigures bAfter = o.after().teams().get("lab/b");
        assertThat(aAfter.deliveredGpuHours()).isGreaterThan(aBefore.deliveredGpuHours());
        assertThat(bAfter.deliveredGpuHours()).isLessThan(bBefore.deliveredGpuHours());
        assertThat(aAfter.waitP50Seconds().get(JobClass.SMALL)).isLessThan(aBefore.waitP50Seconds().get(JobClass.SMALL));
        assertThat(aAfter.owedGpuHours()).isGreaterThan(aBefore.owedGpuHours());
        assertThat(o.after().scenario().fractions().get("lab/a")).isEqualTo(0.9);
    }

    @Test
    void givenAnotherPolicy_whenReplayed_thenTheProposedRunUsesIt() {
        WhatIf.Outcome o = WhatIf.run(trace, 3660 / 86400.0, trace.budgets(), "priority", WhatIf.Settings.defaults());

        assertThat(o.before().policy()).isEqualTo("budget");
        assertThat(o.after().policy()).isEqualTo("priority");
        assertThat(o.after().result().policy()).contains("priority");
    }
}
