package dev.allot.core;

import static dev.allot.core.Fixture.HOUR;
import static dev.allot.core.Fixture.MIN;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class ContractTest {

    @Test
    void minimumRuntimeAboveTheMaximumIsRejectedWithAReason() {
        // given
        Fixture f = new Fixture().teams("a").nodes("c1", 1, 8);
        // when
        f.submit("long", "a", 1, 1, 8 * HOUR + 1, true).submit("neg", "a", 1, 1, -1, true)
                .submit("ok", "a", 1, 1, 8 * HOUR, true);
        List<Decision> d = f.schedule();
        // then
        List<Decision.Reject> rejects = Fixture.only(d, Decision.Reject.class);
        assertThat(rejects).extracting(Decision.Reject::jobId).containsExactly("long", "neg");
        assertThat(rejects.get(0).reason()).contains("exceeds the maximum of 480 min");
        assertThat(f.state("long")).isEqualTo(JobState.REJECTED);
        assertThat(f.state("ok")).isEqualTo(JobState.RUNNING);
    }

    @Test
    void theMaximumIsConfigurable() {
        Fixture f = new Fixture(SchedulerConfig.defaults().withMaxMinRuntime(2 * HOUR)).teams("a").nodes("c1", 1, 8);
        f.submit("j", "a", 1, 1, 3 * HOUR, true);
        assertThat(Fixture.only(f.schedule(), Decision.Reject.class)).hasSize(1);
    }

    @Test
    void chargeModeAndProtectedWindowFollowTheMinimumRuntime() {
        // given
        Fixture f = new Fixture().teams("a").nodes("c1", 1, 8);
        // when
        f.submit("alloc", "a", 1, 2, 15 * MIN, false).submit("free", "a", 1, 2, 0, true);
        List<Decision.Place> places = Fixture.only(f.schedule(), Decision.Place.class);
        // then
        assertThat(places).hasSize(2);
        Decision.Place alloc = places.stream().filter(p -> p.jobId().equals("alloc")).findFirst().orElseThrow();
        Decision.Place free = places.stream().filter(p -> p.jobId().equals("free")).findFirst().orElseThrow();
        assertThat(alloc.chargeMode()).isEqualTo(ChargeMode.ALLOCATED);
        assertThat(alloc.protectedUntilMillis()).isEqualTo(f.now + 15 * MIN);
        assertThat(free.chargeMode()).isEqualTo(ChargeMode.UNALLOCATED);
        assertThat(free.protectedUntilMillis()).isEqualTo(f.now);
        assertThat(f.s.explainRunning("alloc").orElseThrow().preemptibleNow()).isFalse();
        assertThat(f.s.explainRunning("free").orElseThrow().preemptibleNow()).isTrue();
        f.advance(15 * MIN);
        f.s.advanceTo(f.now);
        assertThat(f.s.explainRunning("alloc").orElseThrow().preemptibleNow()).isTrue();
    }

    @Test
    void onlyAllocatedWorkIsCharged() {
        // given one allocated and one unallocated job of 2 GPUs each for an hour
        Fixture f = new Fixture().teams("a").nodes("c1", 1, 8);
        f.submit("alloc", "a", 1, 2, 15 * MIN, false).submit("free", "a", 1, 2, 0, true);
        f.schedule();
        // when
        f.advance(HOUR);
        f.s.advanceTo(f.now);
        // then
        var u = f.s.usage("c1", "a");
        assertThat(u.chargedGpuSeconds()).isEqualTo(2 * 3600.0);
        assertThat(u.unallocatedGpuSeconds()).isEqualTo(2 * 3600.0);
        assertThat(f.s.usage("c1", "org").chargedGpuSeconds()).isEqualTo(2 * 3600.0);
    }
}
