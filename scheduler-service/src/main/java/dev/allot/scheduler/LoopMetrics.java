package dev.allot.scheduler;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/** The loop's meters: pass duration, queue length, decisions by kind, dead letters, inputs. */
final class LoopMetrics {
    private final MeterRegistry registry;
    private final String cluster;
    private final Timer pass;
    private final Counter deadLetters;
    private final Counter inputs;
    private final Counter transactions;

    LoopMetrics(MeterRegistry registry, String cluster, Supplier<SchedulerLoop.Status> status) {
        this.registry = registry == null ? new SimpleMeterRegistry() : registry;
        this.cluster = cluster;
        this.pass = Timer.builder("allot.scheduler.pass").description("Duration of one scheduling pass")
                .tag("cluster", cluster).publishPercentiles(0.5, 0.99).register(this.registry);
        this.deadLetters = Counter.builder("allot.scheduler.dead.letters").tag("cluster", cluster)
                .description("Input records sent to dead-letters").register(this.registry);
        this.inputs = Counter.builder("allot.scheduler.inputs").tag("cluster", cluster)
                .description("Inputs applied to the projection").register(this.registry);
        this.transactions = Counter.builder("allot.scheduler.transactions").tag("cluster", cluster)
                .description("Transactions committed").register(this.registry);
        Gauge.builder("allot.scheduler.queue.length", () -> status.get().waiting()).tag("cluster", cluster)
                .description("Waiting jobs").register(this.registry);
        Gauge.builder("allot.scheduler.running.jobs", () -> status.get().running()).tag("cluster", cluster)
                .register(this.registry);
        Gauge.builder("allot.scheduler.nodes", () -> status.get().nodes()).tag("cluster", cluster)
                .register(this.registry);
    }

    void pass(long nanos, Map<String, Integer> decisionsByKind) {
        pass.record(nanos, TimeUnit.NANOSECONDS);
        decisionsByKind.forEach((kind, n) -> Counter.builder("allot.scheduler.decisions").tag("cluster", cluster)
                .tag("kind", kind).register(registry).increment(n));
    }

    void deadLetter() {
        deadLetters.increment();
    }

    void inputs(int n) {
        inputs.increment(n);
    }

    void transaction() {
        transactions.increment();
    }

    double deadLetters() {
        return deadLetters.count();
    }
}
