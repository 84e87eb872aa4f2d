package dev.allot.testsupport;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import java.util.HashMap;
import java.util.Map;

/**
 * Quarkus test resource: points a service under test at {@link RestartableInfrastructure#dedicated()}, the broker
 * and registry a test may stop and start again (outages), instead of the shared ones. The service also trusts the
 * bearer tokens {@link TestTokens} signs.
 */
public final class RestartableInfraTestResource implements QuarkusTestResourceLifecycleManager {

    @Override
    public Map<String, String> start() {
        RestartableInfrastructure infra = RestartableInfrastructure.dedicated();
        Map<String, String> config = new HashMap<>(Map.of(
                "kafka.bootstrap.servers", infra.bootstrapServers(),
                "quarkus.kafka-streams.bootstrap-servers", infra.bootstrapServers(),
                "mp.messaging.connector.smallrye-kafka.apicurio.registry.url", infra.registryUrl() + "/apis/registry/v3",
                "allot.registry.url", infra.registryUrl(),
                "quarkus.kafka.devservices.enabled", "false",
                "quarkus.apicurio-registry.devservices.enabled", "false"));
        config.putAll(TestTokens.serviceConfig());
        return config;
    }

    @Override
    public void stop() {
        // JVM-wide; stopped by the JVM shutdown hook
    }
}
