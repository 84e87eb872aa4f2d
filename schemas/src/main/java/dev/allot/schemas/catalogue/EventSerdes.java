package dev.allot.schemas.catalogue;

import io.apicurio.registry.serde.avro.AvroKafkaSerializer;
import io.apicurio.registry.resolver.config.SchemaResolverConfig;
import io.apicurio.registry.serde.avro.AvroSerdeConfig;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.serialization.Serializer;

/**
 * The writer side of catalogue values: Apicurio's serializer, through the schema registry, in the Confluent
 * wire format: magic byte 0, a 4-byte big-endian schema id (the registry's content id, which is the id its
 * Confluent-compatible API serves under {@code /apis/ccompat/v7/schemas/ids/{id}}), then Avro binary. No
 * schema id travels in headers; nested records are registered as schema references.
 *
 * <p>The reader side is kafka-edge's {@code EventReader} (the one decoder of these bytes).
 */
public final class EventSerdes {

    private EventSerdes() {
    }

    /** Client properties for the Apicurio serializer; also usable as Kafka producer properties. */
    public static Map<String, Object> registryConfig(String registryUrl) {
        Map<String, Object> config = new HashMap<>();
        config.put("apicurio.registry.url", registryApiUrl(registryUrl));
        config.put("apicurio.registry.auto-register", true);
        config.put("apicurio.registry.find-latest", false);
        config.put("apicurio.registry.headers.enabled", false);
        config.put("apicurio.registry.use-id", "contentId");
        config.put("apicurio.registry.id-handler", "io.apicurio.registry.serde.Default4ByteIdHandler");
        config.put(AvroSerdeConfig.USE_SPECIFIC_AVRO_READER, true);
        // The JDK's HttpClient, not Vert.x: inside a Quarkus service the serde finds Quarkus's Vert.x through CDI,
        // and a schema registration answered 200 by the registry once never completed on the caller's side,
        // parking the scheduler's loop for good (chaos run of 2026-12-06, docs/benchmarks.md). The readers'
        // schema lookups (kafka-edge's WriterSchemas) were on the JDK's client already. The serializers built
        // here bring their own, each call bounded and tried again (RegistryHttp); this setting is for a serializer
        // made from these properties alone.
        config.put(SchemaResolverConfig.HTTP_ADAPTER, "JDK");
        // the class itself, not its name: under Quarkus a name is loaded through another class loader
        config.put(AvroSerdeConfig.AVRO_DATUM_PROVIDER, WriterCache.class);
        return config;
    }

    /** Accepts the registry's base URL ({@code http://host:port}) or its v3 API URL. */
    static String registryApiUrl(String registryUrl) {
        String base = registryUrl.endsWith("/") ? registryUrl.substring(0, registryUrl.length() - 1) : registryUrl;
        return base.contains("/apis/") ? base : base + "/apis/registry/v3";
    }

    public static <V extends SpecificRecord> Serializer<V> valueSerializer(String registryUrl) {
        return valueSerializer(registryUrl, RegistryHttp.REQUEST_TIMEOUT, RegistryHttp.ATTEMPTS);
    }

    /** A serializer whose registry calls each wait at most {@code timeout} and are tried {@code attempts} times. */
    static <V extends SpecificRecord> Serializer<V> valueSerializer(String registryUrl, Duration timeout,
                                                                   int attempts) {
        AvroKafkaSerializer<V> serializer = new AvroKafkaSerializer<>(
                RegistryHttp.facade(registryApiUrl(registryUrl), timeout, attempts));
        serializer.configure(registryConfig(registryUrl), false);
        return serializer;
    }
}
