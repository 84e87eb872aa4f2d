package dev.allot.nodeagent;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StateDirTest {

    @Test
    void givenRestarts_whenClockStandsStillOrGoesBack_thenEpochStillStrictlyIncreases(@TempDir Path dir) {
        long first = new StateDir(dir).nextEpoch("n1", 1_000_000);
        long sameMillis = new StateDir(dir).nextEpoch("n1", 1_000_000);
        long clockWentBack = new StateDir(dir).nextEpoch("n1", 5);
        long otherNode = new StateDir(dir).nextEpoch("n2", 5);

        assertThat(first).isEqualTo(1_000_000);
        assertThat(sameMillis).isEqualTo(1_000_001);
        assertThat(clockWentBack).isEqualTo(1_000_002);
        assertThat(otherNode).isEqualTo(5);
    }

    @Test
    void givenHostileJobId_whenPathsBuilt_thenTheyStayInsideTheStateDir(@TempDir Path dir) {
        StateDir state = new StateDir(dir);

        assertThat(state.checkpointDir("../../etc", 0)).startsWith(state.root());
        assertThat(state.logFile("a/b", 1).getFileName().toString()).isEqualTo("a_b.r1.log");
    }
}
