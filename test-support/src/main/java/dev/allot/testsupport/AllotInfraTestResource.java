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
        return serviceConfig(infra.bootstrapServers(), infra.registryUrl());
    }

    /** What points a service at a broker and a registry; it also trusts TestTokens' key, issuer and audience. */
    static Map<String, String> serviceConfig(String bootstrapServers, String registryUrl) {
        Map<String, String> config = new java.util.HashMap<>(Map.of(
                "kafka.bootstrap.servers", bootstrapServers,
                "quarkus.kafka-streams.bootstrap-servers", bootstrapServers,
                "mp.messaging.connector.smallrye-kafka.apicurio.registry.url", registryUrl + "/apis/registry/v3",
                "allot.registry.url", registryUrl,
                "quarkus.kafka.devservices.enabled", "false",
                "quarkus.apicurio-registry.devservices.enabled", "false"));
        config.putAll(TestTokens.serviceConfig());
        return config;
    }

    @Override
    public void stop() {
        // Shared by every test class in the JVM; stopped by the JVM shutdown hook.
    }
}
