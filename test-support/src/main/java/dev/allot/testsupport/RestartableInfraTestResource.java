package dev.allot.testsupport;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import java.util.Map;

/**
 * Quarkus test resource: points a service under test at {@link RestartableInfrastructure#dedicated()}, the broker
 * and registry a test may stop and start again (outages), instead of the shared ones. The service also trusts the
 * bearer tokens {@link TestTokens} signs. Bring it through the test profile ({@code testResources()}) with
 * {@code disableGlobalTestResources()} true: a module whose other tests register {@link AllotInfraTestResource}
 * globally would otherwise give the service both brokers' settings, and either may win.
 */
public final class RestartableInfraTestResource implements QuarkusTestResourceLifecycleManager {

    @Override
    public Map<String, String> start() {
        RestartableInfrastructure infra = RestartableInfrastructure.dedicated();
        return AllotInfraTestResource.serviceConfig(infra.bootstrapServers(), infra.registryUrl());
    }

    @Override
    public void stop() {
        // JVM-wide; stopped by the JVM shutdown hook
    }
}
