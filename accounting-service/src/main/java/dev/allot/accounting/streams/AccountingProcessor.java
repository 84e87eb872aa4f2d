package dev.allot.accounting.streams;

import dev.allot.accounting.book.AccountingView;
import dev.allot.accounting.book.Budgets;
import dev.allot.accounting.book.Fact;
import dev.allot.accounting.book.Hours;
import dev.allot.accounting.book.Row;
import dev.allot.accounting.book.RowKey;
import dev.allot.accounting.book.Rollup;
import dev.allot.accounting.book.UsageBook;
import dev.allot.core.budget.BudgetTree;
import dev.allot.schemas.BudgetUsage;
import dev.allot.schemas.catalogue.Topics;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * The accounting task of one or more clusters (facts arrive partitioned by cluster).
 *
 * <p>State: hourly rows (RocksDB, changelogged) per (cluster, account, hour); the accounts seen; the
 * GPUs of each node. In memory, rebuilt from the stores on every (re)start: each account's own sum
 * over the current window, and what was last published.
 *
 * <p>Lateness is decided before the shuffle, per input partition ({@link IntakeProcessor}): after
 * the shuffle, records of input partitions that are processed at different speeds (catching up a
 * backlog) interleave, and a stream time taken here would call on-time usage late.
 *
 * <p>Each usage fact adds to one or two hourly rows and to the in-memory sum: O(1), instead of
 * updating 168 overlapping hopping windows. A wall-clock punctuator publishes changed sums (rolled up
 * through the budget tree, with entitlement) and, when the clock crosses an hour, recomputes the sums
 * over the new window from the rows, so expired hours leave the sum with no new input.
 */
final class AccountingProcessor implements Processor<String, Fact, String, Object> {

    private final AccountingSettings settings;
    private final AccountingListener listener;
    private ProcessorContext<String, Object> context;
    private KeyValueStore<String, double[]> rowsKv;
    private KeyValueStore<String, Long> accounts;
    private KeyValueStore<String, Integer> nodes;
    private KeyValueStore<String, ?> budgets;
    private KvRowStore rows;
    private UsageBook book;

    /** cluster -> account -> own row summed over the window. */
    private final Map<String, Map<String, double[]>> sums = new HashMap<>();
    /** cluster -> node -> GPUs. */
    private final Map<String, Map<String, Integer>> capacity = new HashMap<>();
    /** account key -> {charged, unallocated, entitled or NaN} last published. */
    private final Map<String, double[]> published = new HashMap<>();
    private long windowFirstHour = Long.MIN_VALUE;
    private long lastPruneDay = Long.MIN_VALUE;

    private final BudgetReader budgetReader;

    AccountingProcessor(AccountingSettings settings, AccountingListener listener, BudgetReader budgetReader) {
        this.settings = settings;
        this.listener = listener;
        this.budgetReader = budgetReader;
    }

    @Override
    public void init(ProcessorContext<String, Object> context) {
        this.context = context;
        rowsKv = context.getStateStore(AccountingTopology.ROWS_STORE);
        accounts = context.getStateStore(AccountingTopology.ACCOUNTS_STORE);
        nodes = context.getStateStore(AccountingTopology.NODES_STORE);
        budgets = context.getStateStore(AccountingTopology.BUDGETS_STORE);
        rows = new KvRowStore(rowsKv);
        book = new UsageBook(rows);
        sums.clear();
        capacity.clear();
        published.clear(); // after a restart, publish everything once again
        try (KeyValueIterator<String, Integer> it = nodes.all()) {
            while (it.hasNext()) {
                KeyValue<String, Integer> kv = it.next();
                String[] cn = RowKey.parseAccount(kv.key);
                capacity.computeIfAbsent(cn[0], c -> new HashMap<>()).put(cn[1], kv.value);
            }
        }
        try (KeyValueIterator<String, Long> it = accounts.all()) {
            while (it.hasNext()) {
                String[] ca = RowKey.parseAccount(it.next().key);
                sums.computeIfAbsent(ca[0], c -> new HashMap<>()).put(ca[1], Row.empty());
            }
        }
        windowFirstHour = AccountingView.windowFirstHour(now(context.currentSystemTimeMs()), windowMillis());
        recomputeSums();
        context.schedule(settings.emitInterval(), PunctuationType.WALL_CLOCK_TIME, this::punctuate);
    }

    private long windowMillis() {
        return settings.window().toMillis();
    }

    private long now(long wallClock) {
        return Math.max(wallClock, context.currentStreamTimeMs());
    }

    @Override
    public void process(Record<String, Fact> record) {
        Fact f = record.value();
        if (f.kind() == Fact.Kind.NODE) {
            String key = RowKey.account(f.cluster(), f.nodeId());
            if (f.gpus() > 0) {
                nodes.put(key, f.gpus());
                capacity.computeIfAbsent(f.cluster(), c -> new HashMap<>()).put(f.nodeId(), f.gpus());
            } else {
                nodes.delete(key);
                capacity.computeIfAbsent(f.cluster(), c -> new HashMap<>()).remove(f.nodeId());
            }
            listener.booked(f);
            return;
        }
        Map<String, double[]> clusterSums = sums.computeIfAbsent(f.cluster(), c -> new HashMap<>());
        double[] own = clusterSums.get(f.account());
        if (own == null) {
            own = Row.empty();
            clusterSums.put(f.account(), own);
            accounts.put(RowKey.account(f.cluster(), f.account()), f.start());
        }
        double[] sum = own;
        book.apply(f, (hour, column, gpuSeconds) -> {
            if (hour >= windowFirstHour) {
                sum[column] += gpuSeconds;
            }
        });
        listener.booked(f);
    }

    /** Own sums over [windowFirstHour, now's hour] from the rows (no drift from adding and subtracting). */
    private void recomputeSums() {
        long lastHour = windowFirstHour + windowMillis() - Hours.HOUR;
        for (Map.Entry<String, Map<String, double[]>> c : sums.entrySet()) {
            for (Map.Entry<String, double[]> a : c.getValue().entrySet()) {
                a.setValue(UsageBook.sum(rows, c.getKey(), a.getKey(), windowFirstHour, lastHour));
            }
        }
    }

    void punctuate(long wallClock) {
        long now = now(wallClock);
        long first = AccountingView.windowFirstHour(now, windowMillis());
        if (first != windowFirstHour) {
            windowFirstHour = first;
            recomputeSums();
            prune(now);
        }
        publish(now);
    }

    /**
     * Same usage, and owed within 0.1 %: an account younger than the window is owed a little more every
     * second, which alone is not worth a record per account per punctuation (readers that need the exact
     * figure compute it, as the scheduler does, or ask the query API).
     */
    private static boolean unchanged(double[] now, double[] before) {
        if (before == null || now[Row.CHARGED] != before[Row.CHARGED] || now[Row.UNALLOCATED] != before[Row.UNALLOCATED]) {
            return false;
        }
        double e = now[2];
        double b = before[2];
        return Double.isNaN(e) ? Double.isNaN(b) : !Double.isNaN(b) && Math.abs(e - b) <= 1e-3 * Math.abs(b);
    }

    private void publish(long now) {
        BudgetTree tree = budgetReader.tree(budgets);
        Set<String> clusters = new HashSet<>(sums.keySet());
        clusters.addAll(capacity.keySet());
        int count = 0;
        for (String cluster : clusters) {
            Integer gpus = capacity.containsKey(cluster)
                    ? capacity.get(cluster).values().stream().mapToInt(Integer::intValue).sum() : null;
            Map<String, double[]> totals = Rollup.roll(tree, sums.getOrDefault(cluster, Map.of()));
            for (Map.Entry<String, double[]> t : totals.entrySet()) {
                String account = t.getKey();
                double[] sum = t.getValue();
                Double entitled = Budgets.entitled(tree, account, gpus, now, windowMillis());
                double[] now3 = {sum[Row.CHARGED], sum[Row.UNALLOCATED], entitled == null ? Double.NaN : entitled};
                String key = Topics.accountKey(cluster, account);
                if (unchanged(now3, published.get(key))) {
                    continue;
                }
                published.put(key, now3);
                BudgetUsage usage = BudgetUsage.newBuilder()
                        .setAccount(account)
                        .setCluster(cluster)
                        .setWindowStart(Instant.ofEpochMilli(now - windowMillis()))
                        .setWindowEnd(Instant.ofEpochMilli(now))
                        .setChargedGpuSeconds(sum[Row.CHARGED])
                        .setUnallocatedGpuSeconds(sum[Row.UNALLOCATED])
                        .setEntitledGpuSeconds(entitled)
                        .setRatio(entitled != null && entitled > 0 ? sum[Row.CHARGED] / entitled : null)
                        .build();
                context.forward(new Record<>(key, (Object) usage, now));
                count++;
            }
        }
        if (count > 0) {
            listener.published(count);
        }
    }

    /** Once a day, forgets rows older than the retention. */
    private void prune(long now) {
        long day = Math.floorDiv(now, 24 * Hours.HOUR);
        if (day == lastPruneDay) {
            return;
        }
        lastPruneDay = day;
        long cutoff = Hours.hourOf(now - settings.retention().toMillis());
        for (Map.Entry<String, Map<String, double[]>> c : sums.entrySet()) {
            for (String account : c.getValue().keySet()) {
                List<Long> old = new ArrayList<>();
                rows.range(c.getKey(), account, 0, cutoff - Hours.HOUR, (h, r) -> old.add(h));
                old.forEach(h -> rows.delete(c.getKey(), account, h));
            }
        }
    }
}
