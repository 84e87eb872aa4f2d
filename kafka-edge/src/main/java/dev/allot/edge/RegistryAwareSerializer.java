package dev.allot.edge;

import java.io.IOException;
import java.util.Map;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.common.serialization.Serializer;

/**
 * The writer side's registry outage, named as the reader side names it: the registry serializer needs the
 * registry for a schema it has not registered or looked up yet, and when the registry does not answer it throws
 * whatever its HTTP client threw. That becomes {@link RegistryUnavailable}, so that a Kafka Streams thread that
 * could not write its output (a budget-usage, a dead letter) is replaced and writes it again later, as it does
 * when it could not read its input, instead of shutting the client down. Other failures pass unchanged.
 */
final class RegistryAwareSerializer<V> implements Serializer<V> {

    private final Serializer<V> delegate;
    private final String registryUrl;

    RegistryAwareSerializer(Serializer<V> delegate, String registryUrl) {
        this.delegate = delegate;
        this.registryUrl = registryUrl;
    }

    @Override
    public void configure(Map<String, ?> configs, boolean isKey) {
        delegate.configure(configs, isKey);
    }

    @Override
    public byte[] serialize(String topic, V data) {
        try {
            return delegate.serialize(topic, data);
        } catch (RuntimeException e) {
            if (unreachable(e)) {
                throw new RegistryUnavailable("cannot write to " + topic + ": registry unreachable at " + registryUrl
                        + ": " + e, e);
            }
            throw e;
        }
    }

    /** An I/O failure or a timeout anywhere in the chain: the registry did not answer. */
    static boolean unreachable(Throwable error) {
        int depth = 0;
        for (Throwable t = error; t != null && depth < 32; t = t.getCause(), depth++) {
            if (t instanceof RegistryUnavailable || t instanceof IOException || t instanceof TimeoutException) {
                return true;
            }
        }
        return false;
    }

    @Override
    public void close() {
        delegate.close();
    }
}
