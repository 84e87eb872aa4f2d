package dev.allot.accounting.streams;

import static dev.allot.accounting.Events.budget;
import static dev.allot.accounting.Events.node;
import static dev.allot.accounting.Events.usage;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.assertj.core.api.Assertions.within;

import dev.allot.accounting.PlainAvroSerdes;
import dev.allot.accounting.book.RowKey;
import dev.allot.edge.RegistryUnavailable;
import dev.allot.schemas.BudgetEvent;
import dev.allot.schemas.BudgetUsage;
import dev.allot.schemas.DeadLetter;
import dev.allot.schemas.NodeStatus;
import dev.allot.schemas.UsageReported;
import dev.allot.schemas.catalogue.Topic;
import dev.allot.schemas.catalogue.Topics;
import java.nio.file.Files;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse;
import org.apache.kafka.streams.state.KeyValueStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The topology with explicit event times and a controlled wall clock (unit level; the real broker is in the IT). */
class AccountingTopologyTest {

    static final long H = 3_600_000L;
    static final long M = 60_000L;
    /** A whole hour. */
    static final long T0 = Instant.parse("2026-11-02T00:00:00Z").toEpochMilli();

    final AccountingTopics topics = AccountingTopics.catalogue();
    final Serde<UsageReported> usageSerde = PlainAvroSerdes.of(UsageReported.class);
    TopologyTestDriver driver;
    TestInputTopic<String, UsageReported> usageIn;
    TestInputTopic<String, byte[]> rawUsageIn;
    TestInputTopic<String, BudgetEvent> budgetsIn;
    TestInputTopic<String, NodeStatus> nodesIn;
    TestOutputTopic<String, BudgetUsage> usageOut;
    TestOutputTopic<String, DeadLetter> deadOut;
    final Map<String, BudgetUsage> latest = new HashMap<>();
    /** Dead letters of the global budgets store's intake (it has no output topic: a sink of its own). */
    final List<DeadLetter> budgetLetters = new java.util.concurrent.CopyOnWriteArrayList<>();

    void start(long wallClock) throws Exception {
        start(wallClock, new PlainAvroSerdes());
    }

    void start(long wallClock, AccountingSerdes serdes) throws Exception {
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "accounting-test");
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        props.put(StreamsConfig.STATE_DIR_CONFIG, Files.createTempDirectory("accounting-ttd").toString());
        driver = new TopologyTestDriver(AccountingTopology.build(AccountingSettings.defaults(), topics,
                serdes, AccountingListener.NONE, budgetLetters::add), props, Instant.ofEpochMilli(wallClock));
        usageIn = driver.createInputTopic(topics.usage(), new StringSerializer(), usageSerde.serializer());
        rawUsageIn = driver.createInputTopic(topics.usage(), new StringSerializer(), new ByteArraySerializer());
        budgetsIn = driver.createInputTopic(topics.budgets(), new StringSerializer(),
                PlainAvroSerdes.of(BudgetEvent.class).serializer());
        nodesIn = driver.createInputTopic(topics.nodeStatus(), new StringSerializer(),
                PlainAvroSerdes.of(NodeStatus.class).serializer());
        usageOut = driver.createOutputTopic(topics.budgetUsage(), new StringDeserializer(),
                PlainAvroSerdes.of(BudgetUsage.class).deserializer());
        deadOut = driver.createOutputTopic(topics.deadLetters(), new StringDeserializer(),
                PlainAvroSerdes.of(DeadLetter.class).deserializer());
    }

    @AfterEach
    void close() {
        if (driver != null) {
            driver.close();
        }
    }

    void tree() {
        budgetsIn.pipeInput("org", budget("org", null, 1, T0));
        budgetsIn.pipeInput("org/nlp", budget("org/nlp", "org", 3, T0));
        budgetsIn.pipeInput("org/vision", budget("org/vision", "org", 1, T0));
        budgetsIn.pipeInput("org/nlp/team-a", budget("org/nlp/team-a", "org/nlp", 1, T0));
    }

    void use(String account, long start, long end, double gpuSeconds) {
        usageIn.pipeInput("job-" + start, usage("job-" + start, "c1", account, start, end, gpuSeconds, true), end);
    }

    /** Lets the wall clock run (punctuation), then returns the latest BudgetUsage per key. */
    Map<String, BudgetUsage> tick(Duration d) {
        driver.advanceWallClockTime(d);
        usageOut.readKeyValuesToList().forEach(kv -> latest.put(kv.key, kv.value));
        return latest;
    }

    double charged(String account) {
        BudgetUsage u = latest.get("c1/" + account);
        return u == null ? Double.NaN : u.getChargedGpuSeconds();
    }

    @Test
    void givenATree_whenUsageArrives_thenTheLeafAndEveryAncestorPublishTheirSumsWithEntitlement() throws Exception {
        start(T0 + 30 * M);
        tree();
        nodesIn.pipeInput("n1", node("n1", "c1", 8, T0));
        nodesIn.pipeInput("n2", node("n2", "c1", 8, T0));
        use("org/nlp/team-a", T0 + 10 * M, T0 + 20 * M, 3600);
        usageIn.pipeInput("j-free", usage("j-free", "c1", "org/vision", T0, T0 + 10 * M, 100, false), T0 + 10 * M);

        tick(Duration.ofSeconds(1));

        assertThat(charged("org/nlp/team-a")).isEqualTo(3600);
        assertThat(charged("org/nlp")).isEqualTo(3600);
        assertThat(charged("org")).isEqualTo(3600);
        assertThat(charged("org/vision")).isEqualTo(0);
        assertThat(latest.get("c1/org/vision").getUnallocatedGpuSeconds()).isEqualTo(100);
        assertThat(latest.get("c1/org").getUnallocatedGpuSeconds()).isEqualTo(100);
        BudgetUsage nlp = latest.get("c1/org/nlp");
        // owed since the tree was defined (T0), not the whole week: 0.75 of 16 GPUs up to the publish time
        double owedSeconds = (nlp.getWindowEnd().toEpochMilli() - T0) / 1000.0;
        assertThat(owedSeconds).isBetween(30 * 60.0, 60 * 60.0);
        assertThat(nlp.getEntitledGpuSeconds()).isCloseTo(owedSeconds * 16 * 0.75, within(1e-6));
        assertThat(nlp.getRatio()).isCloseTo(3600 / (owedSeconds * 16 * 0.75), within(1e-12));
        assertThat(nlp.getWindowEnd().toEpochMilli() - nlp.getWindowStart().toEpochMilli()).isEqualTo(7 * 24 * H);
    }

    @Test
    void givenNoCapacityKnown_whenPublished_thenEntitlementAndRatioAreNull() throws Exception {
        start(T0 + 30 * M);
        tree();
        use("org/nlp/team-a", T0, T0 + 10 * M, 60);
        tick(Duration.ofSeconds(1));
        assertThat(latest.get("c1/org/nlp/team-a").getEntitledGpuSeconds()).isNull();
        assertThat(latest.get("c1/org/nlp/team-a").getRatio()).isNull();
    }

    @Test
    void givenUsageAroundTheWindowEdges_whenSummed_thenOnlyTheLast168HoursCountSplitAtHourBoundaries() throws Exception {
        long wall = T0 + 168 * H + 30 * M; // window = hours T0+1h .. T0+168h
        start(wall);
        use("acct", T0 + 10 * M, T0 + 20 * M, 100);              // hour T0: out
        use("acct", T0 + 30 * M, T0 + H + 30 * M, 360);          // half in hour T0+1h: 180 in
        use("acct", T0 + H, T0 + H + 10 * M, 200);               // first hour of the window: in
        use("acct", T0 + 168 * H + 5 * M, T0 + 168 * H + 10 * M, 50); // current hour: in

        tick(Duration.ofSeconds(1));

        assertThat(charged("acct")).isCloseTo(430, within(1e-9));
        KeyValueStore<String, double[]> rows = driver.getKeyValueStore(AccountingTopology.ROWS_STORE);
        assertThat(rows.get(RowKey.row("c1", "acct", T0))[0]).isCloseTo(280, within(1e-9));
        assertThat(rows.get(RowKey.row("c1", "acct", T0 + H))[0]).isCloseTo(380, within(1e-9));
    }

    @Test
    void givenUsageInOneHour_whenTheClockPassesSevenDaysWithNoNewInput_thenTheBucketLeavesTheSum() throws Exception {
        start(T0 + 30 * M);
        use("acct", T0, T0 + 10 * M, 600);
        assertThat(tick(Duration.ofSeconds(1))).isNotEmpty();
        assertThat(charged("acct")).isEqualTo(600);

        tick(Duration.ofMillis(167 * H + 29 * M)); // T0 + 167h59m: hour T0 still the first of the window
        assertThat(charged("acct")).isEqualTo(600);

        tick(Duration.ofMinutes(2)); // T0 + 168h01m: hour T0 left
        assertThat(charged("acct")).isEqualTo(0);
    }

    @Test
    void givenStreamTimeAhead_whenUsageArrivesLateWithinGrace_thenItLandsInItsOwnHour() throws Exception {
        start(T0 + 2 * H);
        use("acct", T0 + H + 40 * M, T0 + H + 50 * M, 100);
        use("acct", T0 + 50 * M, T0 + 55 * M, 30); // 55 min behind the stream time, grace 1 h

        tick(Duration.ofSeconds(1));

        assertThat(charged("acct")).isEqualTo(130);
        KeyValueStore<String, double[]> rows = driver.getKeyValueStore(AccountingTopology.ROWS_STORE);
        assertThat(rows.get(RowKey.row("c1", "acct", T0))[0]).isEqualTo(30);
        assertThat(deadOut.isEmpty()).isTrue();
    }

    @Test
    void givenStreamTimeAhead_whenUsageArrivesLaterThanGrace_thenItIsDeadLetteredRawAndTheStreamGoesOn() throws Exception {
        start(T0 + 2 * H);
        use("acct", T0 + H + 40 * M, T0 + H + 50 * M, 100);
        UsageReported tooLate = usage("late-job", "c1", "acct", T0 + 30 * M, T0 + 40 * M, 30, true);
        usageIn.pipeInput("late-job", tooLate, T0 + 40 * M); // 70 min behind
        use("acct", T0 + H + 50 * M, T0 + H + 55 * M, 5);

        tick(Duration.ofSeconds(1));

        assertThat(charged("acct")).isEqualTo(105);
        List<DeadLetter> dead = deadOut.readValuesToList();
        assertThat(dead).hasSize(1);
        assertThat(dead.get(0).getReason()).startsWith("too late");
        assertThat(dead.get(0).getSourceTopic()).isEqualTo(topics.usage());
        assertThat(dead.get(0).getValue().array()).isEqualTo(usageSerde.serializer().serialize("x", tooLate));
        assertThat(new String(dead.get(0).getKey().array())).isEqualTo("late-job");
    }

    @Test
    void givenGarbageAndInvalidUsage_whenConsumed_thenBothAreDeadLetteredWithReasonsAndValidUsageStillCounts()
            throws Exception {
        start(T0 + H);
        rawUsageIn.pipeInput("garbage", new byte[] {1, 2, 3}, T0);
        usageIn.pipeInput("neg", usage("neg", "c1", "acct", T0, T0 + M, -5, true), T0 + M);
        use("acct", T0, T0 + 10 * M, 60);

        tick(Duration.ofSeconds(1));

        List<DeadLetter> dead = deadOut.readValuesToList();
        assertThat(dead).extracting(DeadLetter::getReason)
                .satisfiesExactly(r -> assertThat(r).startsWith("malformed"),
                        r -> assertThat(r).startsWith("invalid usage: gpuSeconds"));
        assertThat(dead.get(0).getValue().array()).containsExactly(1, 2, 3);
        assertThat(dead).extracting(DeadLetter::getConsumer).containsOnly("accounting-service");
        assertThat(charged("acct")).isEqualTo(60);
    }

    @Test
    void givenGarbageOnBudgets_whenConsumed_thenItIsDeadLetteredOnceWithItsReasonAndTheTreeKeepsTheAccount()
            throws Exception {
        start(T0 + 30 * M);
        tree();
        nodesIn.pipeInput("n1", node("n1", "c1", 8, T0));
        TestInputTopic<String, byte[]> rawBudgetsIn = driver.createInputTopic(topics.budgets(), new StringSerializer(),
                new ByteArraySerializer());
        rawBudgetsIn.pipeInput("org/nlp/team-a", new byte[] {1, 2, 3}); // over a real account: it keeps its share
        rawBudgetsIn.pipeInput("junk", new byte[] {0, 0, 0, 0, 9, 9});
        use("org/nlp/team-a", T0 + 10 * M, T0 + 20 * M, 3600);

        tick(Duration.ofSeconds(1));

        assertThat(budgetLetters).hasSize(2).allSatisfy(d -> {
            assertThat(d.getSourceTopic()).isEqualTo(topics.budgets());
            assertThat(d.getReason()).startsWith("malformed: ");
            assertThat(d.getConsumer()).isEqualTo("accounting-service");
        });
        assertThat(budgetLetters.stream().map(DeadLetter::getOffset)).containsExactly(4L, 5L);
        // team-a is still 3/4 of org: 8 GPUs x 0.75 x the owed time since T0
        assertThat(latest.get("c1/org/nlp/team-a").getEntitledGpuSeconds()).isNotNull().isPositive();
        assertThat(latest.get("c1/org/nlp/team-a").getRatio()).isNotNull();
        assertThat(deadOut.readValuesToList()).isEmpty(); // budget letters go through the sink, not the stream
    }

    @Test
    void givenTheRegistryDoesNotAnswer_whenUsageArrives_thenTheThreadIsReplacedToReadItAgain_andNothingIsDeadLettered()
            throws Exception {
        AccountingSerdes registryDown = new AccountingSerdes() {
            @Override
            public <V extends SpecificRecord> Serde<V> serde(Topic<String, V> topic) {
                Serde<V> plain = PlainAvroSerdes.of(topic.valueType());
                return topic.equals(Topics.USAGE) ? Serdes.serdeFrom(plain.serializer(), (t, bytes) -> {
                    throw new RegistryUnavailable("registry answered 503 for a test", null);
                }) : plain;
            }
        };
        start(T0 + 30 * M, registryDown);
        tree();

        Throwable failed = catchThrowable(() -> use("org/nlp/team-a", T0 + 10 * M, T0 + 20 * M, 3600));

        assertThat(failed).hasRootCauseInstanceOf(RegistryUnavailable.class);
        assertThat(deadOut.isEmpty()).isTrue();
        assertThat(new RegistryRetry().handle(failed)).isEqualTo(StreamThreadExceptionResponse.REPLACE_THREAD);
        assertThat(new RegistryRetry().handle(new IllegalStateException("a bug")))
                .isEqualTo(StreamThreadExceptionResponse.SHUTDOWN_CLIENT);
    }

    @Test
    void givenAStreamThreadWhoseStaticMembershipWasFenced_whenItDies_thenItIsReplacedNotTheClientShutDown() {
        // as Kafka Streams wraps it (chaos run after a broker restart: the service stayed down for good)
        Throwable fenced = new org.apache.kafka.streams.errors.StreamsException(new org.apache.kafka.common.KafkaException(
                new org.apache.kafka.common.errors.FencedInstanceIdException("The broker rejected this static consumer"
                        + " since another consumer with the same group.instance.id has registered with a different"
                        + " member.id.")));

        assertThat(new RegistryRetry().handle(fenced)).isEqualTo(StreamThreadExceptionResponse.REPLACE_THREAD);
        assertThat(new RegistryRetry().handle(new org.apache.kafka.streams.errors.StreamsException(
                new IllegalStateException("a bug")))).isEqualTo(StreamThreadExceptionResponse.SHUTDOWN_CLIENT);
    }

    @Test
    void givenUsageOfATeam_whenTheTeamMovesToAnotherParent_thenItsHistoryMovesWithIt() throws Exception {
        start(T0 + H);
        tree();
        use("org/nlp/team-a", T0, T0 + 10 * M, 1000);
        tick(Duration.ofSeconds(1));
        assertThat(charged("org/nlp")).isEqualTo(1000);
        assertThat(charged("org/vision")).isEqualTo(0);

        budgetsIn.pipeInput("org/nlp/team-a", budget("org/nlp/team-a", "org/vision", 1, T0 + H));
        tick(Duration.ofSeconds(1));

        assertThat(charged("org/nlp")).isEqualTo(0);
        assertThat(charged("org/vision")).isEqualTo(1000);
        assertThat(charged("org")).isEqualTo(1000);
        assertThat(latest.get("c1/org/nlp/team-a").getChargedGpuSeconds()).isEqualTo(1000);
    }

    @Test
    void givenNothingChanged_whenTheClockTicks_thenNothingIsRepublished() throws Exception {
        start(T0 + H);
        use("acct", T0, T0 + 10 * M, 60);
        driver.advanceWallClockTime(Duration.ofSeconds(1));
        assertThat(usageOut.readValuesToList()).hasSize(1);
        driver.advanceWallClockTime(Duration.ofSeconds(1));
        assertThat(usageOut.isEmpty()).isTrue();
    }
}
