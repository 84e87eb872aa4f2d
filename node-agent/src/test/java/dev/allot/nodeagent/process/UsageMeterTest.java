package dev.allot.nodeagent.process;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class UsageMeterTest {

    @Test
    void givenRandomCuts_whenClosed_thenTilesAreContiguousAndSumToGpusTimesHeldTime() {
        Instant start = Instant.parse("2026-01-01T00:00:00.123Z");
        UsageMeter meter = new UsageMeter(4, start);
        Random random = new Random(42);
        List<UsageMeter.Tile> tiles = new ArrayList<>();
        Instant now = start;
        for (int i = 0; i < 200; i++) {
            now = now.plusMillis(random.nextInt(3000)); // includes zero-length steps
            meter.cut(now).ifPresent(tiles::add);
        }
        Instant released = now.plusMillis(777);
        meter.close(released).ifPresent(tiles::add);
        meter.cut(released.plusSeconds(10)).ifPresent(tiles::add); // after close: nothing

        for (int i = 1; i < tiles.size(); i++) {
            assertThat(tiles.get(i).start()).isEqualTo(tiles.get(i - 1).end());
        }
        assertThat(tiles.get(0).start()).isEqualTo(start);
        assertThat(tiles.get(tiles.size() - 1).end()).isEqualTo(released);
        double sum = tiles.stream().mapToDouble(UsageMeter.Tile::gpuSeconds).sum();
        assertThat(sum).isCloseTo(4 * (released.toEpochMilli() - start.toEpochMilli()) / 1000.0,
                org.assertj.core.data.Offset.offset(1e-6));
    }

    @Test
    void givenUtilisationSamples_whenCut_thenMeanOfTheIntervalOnly() {
        Instant start = Instant.parse("2026-01-01T00:00:00Z");
        UsageMeter meter = new UsageMeter(2, start);
        meter.sampleUtilisation(0.5);
        meter.sampleUtilisation(1.0);

        assertThat(meter.cut(start.plusSeconds(30)).orElseThrow().meanUtilisation()).isEqualTo(0.75);
        assertThat(meter.cut(start.plusSeconds(60)).orElseThrow().meanUtilisation()).isNull();
    }
}
