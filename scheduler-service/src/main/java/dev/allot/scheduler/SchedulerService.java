package dev.allot.scheduler;

import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.Optional;
import org.eclipse.microprofile.config.ConfigProvider;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/** Starts the cluster's scheduler loop on its own thread when Quarkus starts; stops it on shutdown. */
@ApplicationScoped
public class SchedulerService {

    @ConfigProperty(name = "kafka.bootstrap.servers", defaultValue = "127.0.0.1:9092")
    String bootstrapServers;

    @ConfigProperty(name = "allot.registry.url", defaultValue = "http://127.0.0.1:8080")
    String registryUrl;

    @ConfigProperty(name = "allot.scheduler.cluster", defaultValue = "local")
    String cluster;

    @ConfigProperty(name = "allot.scheduler.tick", defaultValue = "1s")
    Duration tick;

    @ConfigProperty(name = "allot.scheduler.lost-after", defaultValue = "30s")
    Duration lostAfter;

    @ConfigProperty(name = "allot.scheduler.demand-interval", defaultValue = "60s")
    Duration demandInterval;

    @ConfigProperty(name = "allot.scheduler.snapshot-min-interval", defaultValue = "1s")
    Duration snapshotMinInterval;

    @ConfigProperty(name = "allot.scheduler.snapshot-max-entries", defaultValue = "500")
    int snapshotMaxEntries;

    @ConfigProperty(name = "allot.scheduler.stop-grace-seconds", defaultValue = "30")
    int stopGraceSeconds;

    @ConfigProperty(name = "allot.scheduler.usage-feed", defaultValue = "budget-usage")
    String usageFeed;

    @ConfigProperty(name = "allot.scheduler.estimate-interval", defaultValue = "5s")
    Duration estimateInterval;

    @ConfigProperty(name = "allot.scheduler.estimate-horizon", defaultValue = "7d")
    Duration estimateHorizon;

    @ConfigProperty(name = "allot.scheduler.default-run-time", defaultValue = "1h")
    Duration defaultRunTime;

    @ConfigProperty(name = "allot.scheduler.failover-after", defaultValue = "10s")
    Duration failoverAfter;

    @ConfigProperty(name = "allot.scheduler.stall-limit", defaultValue = "5m")
    Duration stallLimit;

    @Inject
    MeterRegistry registry;

    private volatile SchedulerLoop loop;

    void onStart(@Observes StartupEvent event) {
        // kafka.security.protocol, kafka.sasl.mechanism, kafka.sasl.jaas.config (PLAINTEXT when unset)
        loop = new SchedulerLoop(settings(), registry, dev.allot.edge.security.KafkaSecurity.from(SchedulerService::config));
        loop.start();
    }

    void onStop(@Observes ShutdownEvent event) {
        SchedulerLoop l = loop;
        if (l != null) {
            l.stop();
        }
    }

    public Settings settings() {
        return new Settings(bootstrapServers, registryUrl, cluster, tick, lostAfter, demandInterval,
                snapshotMinInterval, snapshotMaxEntries, stopGraceSeconds, usageFeed,
                new Settings.Estimates(estimateInterval, estimateHorizon, defaultRunTime),
                new Settings.Standby(failoverAfter, stallLimit),
                // allot.scheduler.preemption.*: the keys and their defaults are Settings.Preemption's (the audit reads them too)
                Settings.Preemption.from(key -> config(key).orElse(null)));
    }

    /** A key read as it stands in the configuration, for the readers that take their keys themselves. */
    private static Optional<String> config(String key) {
        return ConfigProvider.getConfig().getOptionalValue(key, String.class);
    }

    public SchedulerLoop loop() {
        return loop;
    }
}
