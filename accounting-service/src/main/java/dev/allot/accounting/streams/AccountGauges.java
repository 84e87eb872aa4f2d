package dev.allot.accounting.streams;

import dev.allot.accounting.book.AccountingView;
import dev.allot.accounting.book.Figures;
import dev.allot.accounting.book.RowKey;
import dev.allot.core.budget.BudgetTree;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

/**
 * The owed-hours SLO as Prometheus gauges, per cluster and account, over the window (7 days):
 * owed and delivered GPU-hours (the ledger's definitions), entitled, unallocated, and the fair-share
 * ratio the queue sorts on. Recomputed every {@code allot.accounting.metrics-interval} from this
 * instance's active stores only, so with several instances each cluster is exported once, by the
 * instance that owns it. Label {@code leaf} tells teams (leaves of the tree) from inner accounts.
 */
@ApplicationScoped
public class AccountGauges {

    private static final Logger LOG = Logger.getLogger(AccountGauges.class);

    /** Metric name -> what the figure is; the order of {@link Figures#values}. */
    static final List<String> NAMES = List.of("allot.account.owed.gpu.hours", "allot.account.delivered.gpu.hours",
            "allot.account.entitled.gpu.hours", "allot.account.unallocated.gpu.hours",
            "allot.account.fair.share.ratio");
    private static final List<String> DESCRIPTIONS = List.of(
            "GPU-hours owed over the window: entitlement capped hour by hour at demand",
            "GPU-hours delivered (charged) over the window", "GPU-hours entitled over the window",
            "Unallocated (free) GPU-hours over the window",
            "Charged / entitled GPU-seconds over the window (lower is more under-served)");

    @Inject
    MeterRegistry registry;
    @Inject
    Instance<KafkaStreams> streams;
    @Inject
    AccountingStreams config;
    @ConfigProperty(name = "allot.accounting.metrics-interval", defaultValue = "PT15S")
    Duration interval;

    /** Latest figures per series key (cluster, account, leaf); gauges read them. */
    private final Map<Series, double[]> figures = new ConcurrentHashMap<>();
    private final Map<Series, List<Meter>> meters = new ConcurrentHashMap<>();
    private ScheduledExecutorService timer;
    private BudgetReader budgetReader;

    record Series(String cluster, String account, boolean leaf) {
    }

    void start(@Observes StartupEvent ignored) {
        if (!streams.isResolvable()) {
            return;
        }
        timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "allot-accounting-gauges");
            t.setDaemon(true);
            return t;
        });
        timer.scheduleWithFixedDelay(this::refreshQuietly, interval.toMillis(), interval.toMillis(), TimeUnit.MILLISECONDS);
    }

    void stop(@Observes ShutdownEvent ignored) {
        if (timer != null) {
            timer.shutdownNow();
        }
    }

    private void refreshQuietly() {
        try {
            refresh(System.currentTimeMillis());
        } catch (RuntimeException notReady) {
            // stores not queryable (starting, rebalancing) or budgets not readable yet: keep the last figures
            LOG.debugf("account gauges not refreshed: %s", notReady.toString());
        }
    }

    void refresh(long now) {
        KafkaStreams s = streams.get();
        if (budgetReader == null) {
            budgetReader = config.budgetReader();
        }
        AccountingSettings settings = config.settings();
        Set<Series> seen = new HashSet<>();
        for (String cluster : localClusters(s)) {
            AccountingView view = StoreViews.view(s, cluster, settings, budgetReader);
            BudgetTree tree = budgetReader.tree(StoreViews.store(s, AccountingTopology.BUDGETS_STORE));
            long first = AccountingView.windowFirstHour(now, settings.window().toMillis());
            for (Figures.Usage usage : view.tree(cluster, now)) {
                String account = usage.account();
                Figures.Ledger ledger = view.ledger(cluster, account, first, now);
                Series series = new Series(cluster, account, !tree.exists(account) || tree.children(account).isEmpty());
                figures.put(series, new double[] {ledger.owedGpuHours(), ledger.deliveredGpuHours(),
                        usage.entitledGpuSeconds() == null ? Double.NaN : usage.entitledGpuSeconds() / 3600.0,
                        usage.unallocatedGpuSeconds() / 3600.0, usage.ratio() == null ? Double.NaN : usage.ratio()});
                seen.add(series);
                meters.computeIfAbsent(series, this::register);
            }
        }
        // accounts removed from the tree (or a cluster this instance no longer owns): their series go
        for (Series gone : new ArrayList<>(meters.keySet())) {
            if (!seen.contains(gone)) {
                meters.remove(gone).forEach(registry::remove);
                figures.remove(gone);
            }
        }
    }

    private List<Meter> register(Series series) {
        Tags tags = Tags.of("cluster", series.cluster(), "account", series.account(), "leaf", String.valueOf(series.leaf()));
        List<Meter> registered = new ArrayList<>();
        for (int i = 0; i < NAMES.size(); i++) {
            int index = i;
            registered.add(Gauge.builder(NAMES.get(i), figures, f -> {
                double[] v = f.get(series);
                return v == null ? Double.NaN : v[index];
            }).tags(tags).description(DESCRIPTIONS.get(i)).register(registry));
        }
        return registered;
    }

    /** Clusters with accounts or nodes in this instance's active stores. */
    private static Set<String> localClusters(KafkaStreams s) {
        Set<String> clusters = new TreeSet<>();
        for (String store : List.of(AccountingTopology.ACCOUNTS_STORE, AccountingTopology.NODES_STORE)) {
            ReadOnlyKeyValueStore<String, ?> kv = StoreViews.store(s, store);
            try (KeyValueIterator<String, ?> it = kv.all()) {
                it.forEachRemaining(e -> clusters.add(RowKey.parseAccount(e.key)[0]));
            }
        }
        return clusters;
    }
}
