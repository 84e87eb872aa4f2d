package dev.allot.core.pass;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class FailedShapesTest {

    /** The rule as first written: some recorded failure needs no more replicas and no more GPUs. */
    private static boolean bruteForce(List<int[]> failed, int replicas, int gpus) {
        for (int[] f : failed) {
            if (replicas >= f[0] && gpus >= f[1]) {
                return true;
            }
        }
        return false;
    }

    @Test
    void agreesWithAScanOfEveryFailureOnRandomSequences() {
        for (long seed = 0; seed < 300; seed++) {
            Random rnd = new Random(seed);
            FailedShapes shapes = new FailedShapes();
            ArrayList<int[]> list = new ArrayList<>();
            for (int step = 0; step < 100; step++) {
                int op = rnd.nextInt(10);
                if (op == 0) {
                    shapes.clear();
                    list.clear();
                } else if (op < 4) {
                    int r = 1 + rnd.nextInt(12);
                    int g = 1 + rnd.nextInt(9);
                    shapes.add(r, g);
                    list.add(new int[] {r, g});
                }
                int r = 1 + rnd.nextInt(16);
                int g = rnd.nextInt(11);
                assertThat(shapes.dominates(r, g)).as("seed %d step %d: %d x %d", seed, step, r, g)
                        .isEqualTo(bruteForce(list, r, g));
            }
        }
    }
}
