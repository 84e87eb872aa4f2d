package dev.allot.accounting.streams;

import dev.allot.accounting.book.Fact;
import dev.allot.accounting.book.Intake;
import dev.allot.schemas.AccountDemand;
import dev.allot.schemas.BudgetUsage;
import dev.allot.schemas.DeadLetter;
import dev.allot.schemas.NodeStatus;
import dev.allot.schemas.UsageReported;
import dev.allot.schemas.catalogue.Topics;
import java.util.function.BiFunction;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.Branched;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.kstream.Repartitioned;
import org.apache.kafka.streams.state.Stores;

/**
 * The accounting topology:
 *
 * <pre>
 * usage, account-demand, node-status (raw bytes)
 *   -> intake: deserialise + rules + lateness per input partition; bad or too late -> dead-letters;
 *      good -> Fact keyed cluster/account, time = interval end
 *   -> repartition "facts" by cluster (all accounts of a cluster in one task)
 *   -> accounting: hourly rows (RocksDB), window sums, roll-up through budgets (global store) -> budget-usage
 * budgets (raw bytes) -> budget intake: records that read -> global store; undecodable -> dead-letters
 * </pre>
 */
public final class AccountingTopology {

    /** Hourly rows: {@code cluster SEP account SEP hour} -> {charged, unallocated, demanded} GPU-seconds. */
    public static final String ROWS_STORE = "accounting-hourly-rows";
    /** Accounts with rows: {@code cluster SEP account} -> first hour seen. */
    public static final String ACCOUNTS_STORE = "accounting-accounts";
    /** Latest registration per node: {@code cluster SEP node} -> GPUs. */
    public static final String NODES_STORE = "accounting-node-gpus";
    /** Event time per input partition ({@code topic/partition} -> latest interval end), for lateness. */
    public static final String CLOCK_STORE = "accounting-intake-clock";
    /** The budget tree (global table of the budgets topic). */
    public static final String BUDGETS_STORE = "accounting-budgets";
    /** Name of the internal re-keyed topic (prefixed by the application id, suffixed -repartition). */
    public static final String FACTS = "facts";

    private AccountingTopology() {
    }

    public static Topology build(AccountingSettings settings, AccountingTopics topics, AccountingSerdes serdes,
                                 AccountingListener listener) {
        return build(settings, topics, serdes, listener, BudgetDeadLetters.NONE);
    }

    /** @param budgetDeadLetters where undecodable budget records go (the global store has no output topic) */
    public static Topology build(AccountingSettings settings, AccountingTopics topics, AccountingSerdes serdes,
                                 AccountingListener listener, BudgetDeadLetters budgetDeadLetters) {
        StreamsBuilder builder = new StreamsBuilder();
        // Raw bytes, only of records that read: a malformed budget record is dead-lettered by the intake instead of
        // stopping the global thread (or being decoded again at every publication). The timestamped store is what
        // the global table this replaced kept: state directories of earlier versions read as they are.
        builder.addGlobalStore(Stores.timestampedKeyValueStoreBuilder(
                        Stores.persistentTimestampedKeyValueStore(BUDGETS_STORE), Serdes.String(), Serdes.ByteArray())
                        .withLoggingDisabled(),
                topics.budgets(), Consumed.with(Serdes.String(), Serdes.ByteArray()),
                () -> new BudgetIntake(serdes.serde(Topics.BUDGETS).deserializer(), budgetDeadLetters, listener));
        BudgetReader budgetReader = new BudgetReader(topics.budgets(), serdes.serde(Topics.BUDGETS).deserializer());
        builder.addStateStore(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(ROWS_STORE),
                Serdes.String(), new RowSerde()).withCachingEnabled());
        builder.addStateStore(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(ACCOUNTS_STORE),
                Serdes.String(), Serdes.Long()));
        builder.addStateStore(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(NODES_STORE),
                Serdes.String(), Serdes.Integer()));

        builder.addStateStore(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(CLOCK_STORE),
                Serdes.String(), Serdes.Long()).withCachingEnabled());

        Produced<String, DeadLetter> deadLetterOut = Produced.with(Serdes.String(), serdes.serde(Topics.DEAD_LETTERS));

        KStream<String, Object> usage = intake(builder, topics.usage(), "usage",
                serdes.serde(Topics.USAGE).deserializer(), Intake::usage, listener, settings);
        KStream<String, Object> demand = intake(builder, topics.accountDemand(), "demand",
                serdes.serde(Topics.ACCOUNT_DEMAND).deserializer(), Intake::demand, listener, settings);
        KStream<String, Object> node = intake(builder, topics.nodeStatus(), "node",
                serdes.serde(Topics.NODE_STATUS).deserializer(), Intake::node, listener, settings);

        var split = usage.merge(demand, Named.as("merge-demand")).merge(node, Named.as("merge-node"))
                .split(Named.as("intake-"))
                .branch((k, v) -> v instanceof DeadLetter, Branched.as("bad"))
                .defaultBranch(Branched.as("good"));
        split.get("intake-bad").mapValues(v -> (DeadLetter) v, Named.as("intake-dead-letter"))
                .to(topics.deadLetters(), deadLetterOut);

        split.get("intake-good")
                .mapValues(v -> (Fact) v, Named.as("intake-fact"))
                .repartition(Repartitioned.<String, Fact>as(FACTS)
                        .withKeySerde(Serdes.String()).withValueSerde(new FactSerde())
                        .withNumberOfPartitions(settings.partitions())
                        .withStreamPartitioner(new ClusterPartitioner<>()))
                .process(() -> new AccountingProcessor(settings, listener, budgetReader), Named.as("accounting"),
                        ROWS_STORE, ACCOUNTS_STORE, NODES_STORE)
                .mapValues(v -> (BudgetUsage) v, Named.as("budget-usage"))
                .to(topics.budgetUsage(), Produced.with(Serdes.String(), serdes.serde(Topics.BUDGET_USAGE)));
        return builder.build();
    }

    private static <V extends SpecificRecord> KStream<String, Object> intake(
            StreamsBuilder builder, String topic, String name, Deserializer<V> deserializer,
            BiFunction<V, Intake.Source, Intake.Result> rule, AccountingListener listener,
            AccountingSettings settings) {
        return builder.stream(topic, Consumed.with(Serdes.ByteArray(), Serdes.ByteArray()).withName("read-" + name))
                .process(() -> new IntakeProcessor<>(deserializer, rule, listener, settings.grace().toMillis()),
                        Named.as("intake-" + name), CLOCK_STORE);
    }
}
