package dev.allot.budget.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class SeenEventIdsTest {

    @Test
    void givenManyUuidsAndOtherIds_whenAddedTwice_thenEachIsNewOnceOnly() {
        Random random = new Random(7);
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 100; i++) { // past the first array's 8 ids
            ids.add(new UUID(random.nextLong(), random.nextLong()).toString());
        }
        ids.add("e1");
        ids.add("not-a-uuid-but-thirty-six-chars-long");
        String upper = ids.get(0).toUpperCase();
        ids.add(upper); // another id's spelling: kept as it is, apart from its lower-case twin
        SeenEventIds seen = new SeenEventIds();

        for (String id : ids) {
            assertThat(seen.add(id)).as("first time %s", id).isTrue();
        }
        for (String id : ids) {
            assertThat(seen.add(id)).as("again %s", id).isFalse();
        }
    }
}
