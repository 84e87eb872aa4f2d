package dev.allot.edge.security;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.function.Function;

/**
 * How a Kafka client authenticates: {@code security.protocol}, {@code sasl.mechanism} and
 * {@code sasl.jaas.config}. {@link #PLAINTEXT} (no authentication) or SASL/SCRAM as one principal.
 *
 * <p>Services read it from their configuration ({@link #from}: keys {@code kafka.security.protocol},
 * {@code kafka.sasl.mechanism}, {@code kafka.sasl.jaas.config}, so the environment variables
 * {@code KAFKA_SECURITY_PROTOCOL}, ... of a container work too); tools from the environment
 * ({@link #fromEnvironment}: a client properties file named by {@code ALLOT_KAFKA_CONFIG}, the one
 * {@code bin/allot kafka-credentials} prints).
 */
public record KafkaSecurity(String protocol, String mechanism, String jaasConfig) {

    /** The mechanism of Allot's brokers. */
    public static final String SCRAM_MECHANISM = "SCRAM-SHA-512";

    /** No authentication: the test suite's default broker, and {@code ALLOT_KAFKA_SECURITY=plaintext}. */
    public static final KafkaSecurity PLAINTEXT = new KafkaSecurity("PLAINTEXT", null, null);

    /** The environment variable naming a Kafka client properties file, for tools. */
    public static final String CONFIG_FILE_ENV = "ALLOT_KAFKA_CONFIG";

    public KafkaSecurity {
        if (protocol == null || protocol.isBlank()) {
            throw new IllegalArgumentException("security.protocol is empty");
        }
        if (protocol.startsWith("SASL") && (mechanism == null || jaasConfig == null)) {
            throw new IllegalArgumentException(protocol + " needs sasl.mechanism and sasl.jaas.config");
        }
    }

    /** SASL/SCRAM-SHA-512 over plaintext TCP as {@code user}. */
    public static KafkaSecurity scram(String user, String password) {
        return new KafkaSecurity("SASL_PLAINTEXT", SCRAM_MECHANISM, jaas(
                "org.apache.kafka.common.security.scram.ScramLoginModule", user, password));
    }

    /** A JAAS login module line with a user name and a password ({@code "} and {@code \} escaped). */
    public static String jaas(String loginModule, String user, String password) {
        return loginModule + " required username=\"" + quote(user) + "\" password=\"" + quote(password) + "\";";
    }

    private static String quote(String s) {
        return s.replace("\\", "\\\\").replace("\"", "\\\"");
    }

    /** True unless {@link #PLAINTEXT}-like (no SASL). */
    public boolean authenticated() {
        return protocol.startsWith("SASL");
    }

    /** From a service's configuration: {@code lookup} answers {@code kafka.security.protocol} and the rest. */
    public static KafkaSecurity from(Function<String, Optional<String>> lookup) {
        String protocol = lookup.apply("kafka.security.protocol").filter(s -> !s.isBlank()).orElse("PLAINTEXT");
        if (protocol.equals("PLAINTEXT")) {
            return PLAINTEXT;
        }
        return new KafkaSecurity(protocol,
                lookup.apply("kafka.sasl.mechanism").filter(s -> !s.isBlank()).orElse(SCRAM_MECHANISM),
                lookup.apply("kafka.sasl.jaas.config").filter(s -> !s.isBlank()).orElseThrow(() ->
                        new IllegalArgumentException("kafka.security.protocol=" + protocol
                                + " needs kafka.sasl.jaas.config (KAFKA_SASL_JAAS_CONFIG)")));
    }

    /**
     * For tools: the file {@code ALLOT_KAFKA_CONFIG} names (Kafka client properties), else the system
     * properties and environment variables a service would read, else {@link #PLAINTEXT}.
     */
    public static KafkaSecurity fromEnvironment() {
        String file = System.getenv(CONFIG_FILE_ENV);
        if (file != null && !file.isBlank()) {
            return fromClientProperties(load(Path.of(file)));
        }
        return from(key -> Optional.ofNullable(System.getProperty(key))
                .or(() -> Optional.ofNullable(System.getenv(key.toUpperCase().replace('.', '_')))));
    }

    /** From a Kafka client properties file's {@code security.protocol}, {@code sasl.mechanism}, {@code sasl.jaas.config}. */
    public static KafkaSecurity fromClientProperties(Properties properties) {
        return from(key -> Optional.ofNullable(properties.getProperty(key.substring("kafka.".length()))));
    }

    /** Loads a Kafka client properties file. */
    public static Properties load(Path file) {
        Properties properties = new Properties();
        try (Reader in = Files.newBufferedReader(file)) {
            properties.load(in);
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read the Kafka client properties " + file + ": " + e.getMessage(), e);
        }
        return properties;
    }

    /** The client settings to add to every producer, consumer, admin and Streams configuration. */
    public Map<String, Object> clientConfig() {
        Map<String, Object> config = new LinkedHashMap<>();
        config.put("security.protocol", protocol);
        if (mechanism != null) {
            config.put("sasl.mechanism", mechanism);
        }
        if (jaasConfig != null) {
            config.put("sasl.jaas.config", jaasConfig);
        }
        return config;
    }

    /** A client properties file's text: these settings and {@code bootstrap.servers}. */
    public String clientProperties(String bootstrapServers) {
        StringBuilder text = new StringBuilder("bootstrap.servers=" + bootstrapServers + "\n");
        clientConfig().forEach((key, value) -> text.append(key).append('=')
                .append(value.toString().replace("\\", "\\\\")).append('\n'));
        return text.toString();
    }

    /** Never prints the password. */
    @Override
    public String toString() {
        return "KafkaSecurity[" + protocol + (mechanism == null ? "" : " " + mechanism) + "]";
    }
}
