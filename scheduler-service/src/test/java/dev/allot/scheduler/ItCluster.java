package dev.allot.scheduler;

import io.quarkus.test.junit.QuarkusTestProfile;
import java.util.Map;
import java.util.UUID;

/** A cluster of its own for the service under test, so other test classes' events on the shared broker are not its business. */
public class ItCluster implements QuarkusTestProfile {
    @Override
    public Map<String, String> getConfigOverrides() {
        return Map.of("allot.scheduler.cluster", "it-" + UUID.randomUUID().toString().substring(0, 8),
                "allot.scheduler.tick", "200ms",
                "allot.scheduler.lost-after", "10m",
                "allot.scheduler.demand-interval", "2s",
                "allot.scheduler.estimate-interval", "500ms",
                "allot.scheduler.estimate-horizon", "3d");
    }
}
