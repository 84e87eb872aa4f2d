package dev.allot.core.preemption;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class NodeReachTest {

    /** The nodes the index yields for a threshold, in the order it yields them. */
    private static List<Integer> visited(NodeReach reach, int k) {
        ArrayList<Integer> out = new ArrayList<>();
        long[] words = reach.atLeast(k);
        if (words == null) {
            return out;
        }
        for (int w = 0; w < words.length; w++) {
            for (long bits = words[w]; bits != 0; bits &= bits - 1) {
                out.add(w << 6 | Long.numberOfTrailingZeros(bits));
            }
        }
        return out;
    }

    private static List<Integer> bruteForce(int[] keys, int k) {
        ArrayList<Integer> out = new ArrayList<>();
        for (int i = 0; i < keys.length; i++) {
            if (keys[i] >= Math.max(k, 0)) {
                out.add(i);
            }
        }
        return out;
    }

    @Test
    void agreesWithAScanOfEveryNodeOnRandomWorlds() {
        for (long seed = 0; seed < 200; seed++) {
            // given random keys on 1 to 300 nodes (word boundaries included)
            Random rnd = new Random(seed);
            int n = 1 + rnd.nextInt(300);
            int[] keys = new int[n];
            for (int i = 0; i < n; i++) {
                keys[i] = rnd.nextInt(17);
            }
            NodeReach reach = new NodeReach(keys);
            for (int step = 0; step < 200; step++) {
                // when keys are lowered (or "lowered" to a higher value, which must change nothing)
                int i = rnd.nextInt(n);
                int k = rnd.nextInt(19) - 1;
                reach.lower(i, k);
                keys[i] = Math.min(keys[i], Math.max(k, 0));
                // then every threshold yields exactly the nodes a full scan finds, in index order
                int t = rnd.nextInt(20) - 1;
                assertThat(visited(reach, t)).as("seed %d step %d threshold %d", seed, step, t)
                        .isEqualTo(bruteForce(keys, t));
                assertThat(reach.key(i)).isEqualTo(keys[i]);
            }
        }
    }

    @Test
    void thresholdAboveEveryKeyYieldsNothing() {
        NodeReach reach = new NodeReach(new int[] {3, 8, 0});
        assertThat(reach.atLeast(9)).isNull();
        assertThat(visited(reach, 8)).containsExactly(1);
        assertThat(visited(reach, 0)).containsExactly(0, 1, 2);
    }
}
