package dev.allot.scheduler;

import dev.allot.edge.ConsumerLag;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.Consumer;

/**
 * The loop's meters (Prometheus names in the README): passes and their duration, the last pass's time,
 * waiting and running jobs, the cluster's GPUs and how many are held, GPUs waiting per account,
 * decisions by kind, dead letters, consumer lag, inputs, transactions, expected-start refreshes.
 */
final class LoopMetrics {
    static final String CONSUMER = "scheduler-service";

    private final MeterRegistry registry;
    private final String cluster;
    private final Supplier<SchedulerLoop.Status> status;
    private final Timer pass;
    private final Timer estimate;
    private final Timer estimateCopy;
    private final Counter deadLetters;
    private final Counter inputs;
    private final Counter transactions;
    private final Timer commit;
    private final ConsumerLag lag = new ConsumerLag();
    /** Accounts given a waiting-GPUs gauge so far; an account with nothing waiting reads 0. */
    private final Set<String> accounts = ConcurrentHashMap.newKeySet();

    LoopMetrics(MeterRegistry registry, String cluster, Supplier<SchedulerLoop.Status> status) {
        this.registry = registry == null ? new SimpleMeterRegistry() : registry;
        this.cluster = cluster;
        this.status = status;
        this.pass = Timer.builder("allot.scheduler.pass").description("Duration of one scheduling pass")
                .tag("cluster", cluster).publishPercentiles(0.5, 0.99).register(this.registry);
        this.estimate = Timer.builder("allot.scheduler.estimate.refresh")
                .description("Duration of one refresh of the waiting jobs' expected starts (the forward run of a copy"
                        + " of the core, on the estimates thread)")
                .tag("cluster", cluster).publishPercentiles(0.5, 0.99).register(this.registry);
        this.estimateCopy = Timer.builder("allot.scheduler.estimate.copy")
                .description("Time the loop's thread spends on one refresh of the expected starts (copying the core)")
                .tag("cluster", cluster).publishPercentiles(0.5, 0.99).register(this.registry);
        this.deadLetters = Counter.builder("allot.dead.letters").tags("consumer", CONSUMER, "cluster", cluster)
                .description("Input records sent to dead-letters").register(this.registry);
        this.inputs = Counter.builder("allot.scheduler.inputs").tag("cluster", cluster)
                .description("Inputs applied to the projection").register(this.registry);
        this.transactions = Counter.builder("allot.scheduler.transactions").tag("cluster", cluster)
                .description("Transactions committed").register(this.registry);
        this.commit = Timer.builder("allot.scheduler.commit")
                .description("Duration of one step's transaction: its records sent, its input offsets, the commit"
                        + " (the decisions reach node agents and readers after it)")
                .tag("cluster", cluster).publishPercentiles(0.5, 0.99).register(this.registry);
        gauge("allot.scheduler.waiting.jobs", "Jobs waiting in the cluster's queue", s -> s.waiting());
        gauge("allot.scheduler.running.jobs", "Jobs running", s -> s.running());
        gauge("allot.scheduler.nodes", "Nodes known (live or not)", s -> s.nodes());
        gauge("allot.cluster.gpus", "GPUs of the cluster's live nodes", s -> s.gpus().total());
        gauge("allot.cluster.busy.gpus", "GPUs held by running jobs (charged or not)", s -> s.gpus().busy());
        gauge("allot.scheduler.last.pass.timestamp.seconds", "When the last scheduling pass ran (Unix time)",
                s -> s.lastPassAtMillis() < 0 ? Double.NaN : s.lastPassAtMillis() / 1000.0);
        Gauge.builder("allot.consumer.lag.records", lag, ConsumerLag::records)
                .tags("consumer", CONSUMER, "cluster", cluster)
                .description("Records the input consumer is behind the ends of its partitions").register(this.registry);
    }

    private void gauge(String name, String description, java.util.function.ToDoubleFunction<SchedulerLoop.Status> value) {
        Gauge.builder(name, status, s -> value.applyAsDouble(s.get())).tag("cluster", cluster).description(description)
                .register(registry);
    }

    void pass(long nanos, Map<String, Integer> decisionsByKind) {
        pass.record(nanos, TimeUnit.NANOSECONDS);
        decisionsByKind.forEach((kind, n) -> Counter.builder("allot.scheduler.decisions").tag("cluster", cluster)
                .tag("kind", kind).register(registry).increment(n));
        for (String account : status.get().gpus().waitingByAccount().keySet()) {
            if (accounts.add(account)) {
                Gauge.builder("allot.account.waiting.gpus", status,
                                s -> s.get().gpus().waitingByAccount().getOrDefault(account, 0))
                        .tags(Tags.of("cluster", cluster, "account", account))
                        .description("GPUs the account's waiting jobs ask for").register(registry);
            }
        }
    }

    /** A forward run's duration (called on the estimates thread). */
    void estimate(long nanos) {
        estimate.record(nanos, TimeUnit.NANOSECONDS);
    }

    /** The loop thread's part of a refresh: the copy of the core. */
    void estimateCopy(long nanos) {
        estimateCopy.record(nanos, TimeUnit.NANOSECONDS);
    }

    void lag(Consumer<?, ?> consumer) {
        lag.measure(consumer);
    }

    void deadLetter() {
        deadLetters.increment();
    }

    void inputs(int n) {
        inputs.increment(n);
    }

    void transaction(long nanos) {
        transactions.increment();
        commit.record(nanos, TimeUnit.NANOSECONDS);
    }

    /** An active term began: {@code rebuilt} from the log, or {@code kept} (the last term's projection went on). */
    void termStarted(String how) {
        Counter.builder("allot.scheduler.terms").tag("cluster", cluster).tag("start", how)
                .description("Active terms begun: start=rebuilt (from the log) or kept (the role came straight back "
                        + "and nobody had written: the last term's projection went on)")
                .register(registry).increment();
    }

    /** A step's transaction that needed another try: an abort and a resend, or a commit awaited again. */
    void transactionRetry(String kind) {
        Counter.builder("allot.scheduler.transaction.retries").tag("cluster", cluster).tag("kind", kind)
                .description("Retries of a step's transaction: kind transaction (aborted and written again), "
                        + "commit-timeout (the commit awaited again), offsets-timeout (offsets not acknowledged in time)")
                .register(registry).increment();
    }

    double deadLetters() {
        return deadLetters.count();
    }
}
