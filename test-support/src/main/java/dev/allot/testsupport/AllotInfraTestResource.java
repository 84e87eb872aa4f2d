package dev.allot.testsupport;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import java.util.Map;

/**
 * Quarkus test resource: points a service under test at the shared broker and registry. Use with
 * {@code @QuarkusTestResource(AllotInfraTestResource.class)} (or {@code @WithTestResource}). The service also
 * trusts the bearer tokens {@link TestTokens} signs.
 */
public final class AllotInfraTestResource implements QuarkusTestResourceLifecycleManager {

    @Override
    public Map<String, String> start() {
        AllotInfrastructure infra = AllotInfrastructure.shared();
        String registryApi = infra.registryUrl() + "/apis/registry/v3";
        Map<String, String> config = new java.util.HashMap<>(Map.of(
                "kafka.bootstrap.servers", infra.bootstrapServers(),
                "quarkus.kafka-streams.bootstrap-servers", infra.bootstrapServers(),
                "mp.messaging.connector.smallrye-kafka.apicurio.registry.url", registryApi,
                "allot.registry.url", infra.registryUrl(),
                "quarkus.kafka.devservices.enabled", "false",
                "quarkus.apicurio-registry.devservices.enabled", "false"));
        // the service trusts TestTokens' key, issuer and audience
        config.putAll(TestTokens.serviceConfig());
        return config;
    }

    @Override
    public void stop() {
        // Shared by every test class in the JVM; stopped by the JVM shutdown hook.
    }
}
