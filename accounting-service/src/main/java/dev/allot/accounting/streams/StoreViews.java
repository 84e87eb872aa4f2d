package dev.allot.accounting.streams;

import dev.allot.accounting.book.AccountingView;
import dev.allot.accounting.book.Budgets;
import dev.allot.accounting.book.RowKey;
import dev.allot.core.budget.BudgetTree;
import dev.allot.schemas.BudgetEvent;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/** An {@link AccountingView} of one cluster over this instance's local stores (interactive queries). */
public final class StoreViews {

    private StoreViews() {
    }

    public static AccountingView view(KafkaStreams streams, String cluster, AccountingSettings settings,
                                      BudgetReader budgetReader) {
        ReadOnlyKeyValueStore<String, double[]> rows = store(streams, AccountingTopology.ROWS_STORE);
        ReadOnlyKeyValueStore<String, Long> accounts = store(streams, AccountingTopology.ACCOUNTS_STORE);
        ReadOnlyKeyValueStore<String, Integer> nodes = store(streams, AccountingTopology.NODES_STORE);
        ReadOnlyKeyValueStore<String, byte[]> budgets = store(streams, AccountingTopology.BUDGETS_STORE);

        List<String> clusterAccounts = new ArrayList<>();
        try (KeyValueIterator<String, Long> it = accounts.prefixScan(cluster + RowKey.SEP,
                org.apache.kafka.common.serialization.Serdes.String().serializer())) {
            it.forEachRemaining(kv -> clusterAccounts.add(RowKey.parseAccount(kv.key)[1]));
        }
        Integer gpus = null;
        try (KeyValueIterator<String, Integer> it = nodes.prefixScan(cluster + RowKey.SEP,
                org.apache.kafka.common.serialization.Serdes.String().serializer())) {
            while (it.hasNext()) {
                gpus = (gpus == null ? 0 : gpus) + it.next().value;
            }
        }
        BudgetTree tree = budgetReader.tree(budgets);
        return new AccountingView(new KvRowStore(rows), Map.of(cluster, clusterAccounts), tree,
                gpus == null ? Map.of() : Map.of(cluster, gpus), settings.window().toMillis());
    }

    public static <V> ReadOnlyKeyValueStore<String, V> store(KafkaStreams streams, String name) {
        return streams.store(StoreQueryParameters.fromNameAndType(name, QueryableStoreTypes.<String, V>keyValueStore()));
    }
}
