package dev.allot.accounting.streams;

import dev.allot.accounting.book.Budgets;
import dev.allot.core.budget.BudgetTree;
import dev.allot.edge.InvalidRecord;
import dev.allot.schemas.BudgetEvent;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;
import org.apache.kafka.streams.state.ValueAndTimestamp;
import org.jboss.logging.Logger;

/**
 * Decodes the raw budgets global store into the budget tree; undecodable entries are skipped (and logged once).
 * A registry that does not answer is not an undecodable entry: {@code RegistryUnavailable} propagates, rather
 * than a tree silently missing accounts.
 */
public final class BudgetReader {

    private static final Logger LOG = Logger.getLogger(BudgetReader.class);

    private final String topic;
    private final Deserializer<BudgetEvent> deserializer;
    private volatile int lastBad = -1;

    public BudgetReader(String topic, Deserializer<BudgetEvent> deserializer) {
        this.topic = topic;
        this.deserializer = deserializer;
    }

    public BudgetTree tree(ReadOnlyKeyValueStore<String, ?> store) {
        List<BudgetEvent> events = new ArrayList<>();
        int bad = 0;
        try (KeyValueIterator<String, ?> it = store.all()) {
            while (it.hasNext()) {
                Object v = it.next().value;
                if (v instanceof ValueAndTimestamp<?> vt) {
                    v = vt.value();
                }
                if (v instanceof byte[] bytes) {
                    try {
                        events.add(deserializer.deserialize(topic, bytes));
                    } catch (InvalidRecord e) {
                        bad++;
                        if (bad > lastBad) {
                            LOG.warnf("skipping an undecodable budget record: %s", e.toString());
                        }
                    }
                }
            }
        }
        lastBad = bad;
        return Budgets.tree(events);
    }
}
