package dev.allot.accounting.api;

import static dev.allot.accounting.Events.budget;
import static dev.allot.accounting.Events.demand;
import static dev.allot.accounting.Events.node;
import static dev.allot.accounting.Events.usage;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;

import dev.allot.accounting.book.Figures;
import dev.allot.accounting.replay.Replay;
import dev.allot.accounting.replay.ReplayCommand;
import dev.allot.accounting.streams.AccountingTopics;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import picocli.CommandLine;
import dev.allot.schemas.BudgetUsage;
import dev.allot.schemas.DeadLetter;
import dev.allot.schemas.catalogue.Topics;
import dev.allot.testsupport.AllotInfraTestResource;
import dev.allot.testsupport.AllotInfrastructure;
import dev.allot.testsupport.Tail;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import com.sun.net.httpserver.HttpServer;
import dev.allot.accounting.streams.AccountingListener;
import dev.allot.accounting.streams.AccountingSerdes;
import dev.allot.accounting.streams.AccountingSettings;
import dev.allot.accounting.streams.AccountingStreamsMain;
import dev.allot.accounting.streams.AccountingTopology;
import dev.allot.accounting.streams.ClusterPartitioner;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.util.Properties;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KeyQueryMetadata;
import org.apache.kafka.streams.StreamsConfig;
import org.eclipse.microprofile.config.ConfigProvider;

/** The service on the real broker and registry: usage in, budget-usage out, REST answers, dead letters. */
@QuarkusTest
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@QuarkusTestResource(value = AllotInfraTestResource.class, restrictToAnnotatedClass = false)
class AccountingServiceTest {

    static final long H = 3_600_000L;

    @Test
    @Order(1)
    void givenATreeNodesUsageAndDemand_whenProcessed_thenBudgetUsageIsPublishedAndRestAnswersAgree() throws Exception {
        AllotInfrastructure infra = AllotInfrastructure.shared();
        String id = UUID.randomUUID().toString().substring(0, 8);
        String cluster = "it" + id;
        String root = "lab-" + id;
        String teamA = root + "/team-a";
        String teamB = root + "/team-b";
        long hour = (System.currentTimeMillis() / H) * H - 2 * H; // two whole hours ago
        double expectedA = 0;
        try (KafkaProducer<String, SpecificRecord> producer = infra.producer()) {
            producer.send(new ProducerRecord<>(Topics.BUDGETS.name(), root, budget(root, null, 1, hour)));
            producer.send(new ProducerRecord<>(Topics.BUDGETS.name(), teamA, budget(teamA, root, 3, hour)));
            producer.send(new ProducerRecord<>(Topics.BUDGETS.name(), teamB, budget(teamB, root, 1, hour)));
            producer.send(new ProducerRecord<>(Topics.NODE_STATUS.name(), cluster + "-n1", node(cluster + "-n1", cluster, 8, hour)));
            for (int i = 0; i < 60; i++) {
                long start = hour + i * 60_000L;
                double gs = 60.0 * (1 + i % 4);
                expectedA += gs;
                producer.send(new ProducerRecord<>(Topics.USAGE.name(), "job-" + id + "-" + i,
                        usage("job-" + id + "-" + i, cluster, teamA, start, start + 60_000L, gs, true)));
            }
            producer.send(new ProducerRecord<>(Topics.USAGE.name(), "job-b-" + id,
                    usage("job-b-" + id, cluster, teamB, hour, hour + 600_000L, 600, false)));
            producer.send(new ProducerRecord<>(Topics.ACCOUNT_DEMAND.name(), Topics.accountKey(cluster, teamA),
                    demand(cluster, teamA, hour, hour + H, 2)));
            producer.flush();
        }
        byte[] garbage = ("not avro " + id).getBytes();
        try (KafkaProducer<String, byte[]> raw = new KafkaProducer<>(Map.of("bootstrap.servers", infra.bootstrapServers()),
                new StringSerializer(), new ByteArraySerializer())) {
            raw.send(new ProducerRecord<>(Topics.USAGE.name(), "garbage-" + id, garbage)).get();
        }

        // budget-usage on the topic: the root sums both teams (team-b's usage is unallocated)
        Map<String, BudgetUsage> latest = new HashMap<>();
        double total = expectedA;
        try (Tail<BudgetUsage> budgetUsage = new Tail<>(infra, Topics.BUDGET_USAGE)) {
            await().atMost(Duration.ofSeconds(90)).until(() -> {
                budgetUsage.records().forEach(r -> latest.put(r.key(), r.value()));
                BudgetUsage r = latest.get(Topics.accountKey(cluster, root));
                return r != null && r.getChargedGpuSeconds() == total && r.getUnallocatedGpuSeconds() == 600;
            });
        }
        BudgetUsage a = latest.get(Topics.accountKey(cluster, teamA));
        assertThat(a.getChargedGpuSeconds()).isEqualTo(expectedA);
        // owed since the team was created, two whole hours before now (not the whole week)
        double owedSeconds = (a.getWindowEnd().toEpochMilli() - hour) / 1000.0;
        assertThat(owedSeconds).isBetween(2 * 3600.0, 3 * 3600.0 + 120);
        assertThat(a.getEntitledGpuSeconds()).isCloseTo(owedSeconds * 8 * 0.75,
                org.assertj.core.api.Assertions.within(1e-6 * a.getEntitledGpuSeconds()));

        JsonPath usage = given().queryParam("cluster", cluster).queryParam("account", root)
                .get("/accounting/usage").then().log().ifValidationFails().statusCode(200).extract().jsonPath();
        assertThat(usage.getDouble("chargedGpuSeconds")).isEqualTo(expectedA);
        assertThat(usage.getDouble("unallocatedGpuSeconds")).isEqualTo(600);

        JsonPath tree = given().queryParam("cluster", cluster).get("/accounting/tree").then().statusCode(200)
                .extract().jsonPath();
        assertThat(tree.getList("findAll { it.account.startsWith('" + root + "') }.account"))
                .containsExactlyInAnyOrder(root, teamA, teamB);

        List<Map<String, Object>> history = given().queryParam("cluster", cluster).queryParam("account", teamA)
                .get("/accounting/history").then().statusCode(200).extract().jsonPath().getList("$");
        assertThat(history).hasSize(1);
        assertThat(((Number) history.get(0).get("hourStart")).longValue()).isEqualTo(hour);

        // ledger for that hour: entitled 0.75 x 8 GPUs x 3600 = 21600, demanded 2 GPUs x 3600 = 7200 -> owed 7200
        JsonPath ledger = given().queryParam("cluster", cluster).queryParam("account", teamA)
                .queryParam("from", hour).queryParam("to", hour + H)
                .get("/accounting/ledger").then().statusCode(200).extract().jsonPath();
        assertThat(ledger.getDouble("owedGpuHours")).isEqualTo(2.0);
        assertThat(ledger.getDouble("deliveredGpuHours")).isEqualTo(expectedA / 3600);
        assertThat(ledger.getDouble("hours[0].entitledGpuSeconds")).isEqualTo(21600.0);

        // the same figures as Prometheus gauges over the window: team-a a leaf owed 2 and delivered 2.5 GPU-hours;
        // the root an inner account
        double deliveredA = expectedA / 3600;
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(given().get("/q/metrics").asString())
                .contains("allot_account_owed_gpu_hours{account=\"" + teamA + "\",cluster=\"" + cluster
                        + "\",leaf=\"true\"} 2.0")
                .contains("allot_account_delivered_gpu_hours{account=\"" + teamA + "\",cluster=\"" + cluster
                        + "\",leaf=\"true\"} " + deliveredA)
                .containsPattern(java.util.regex.Pattern.quote("allot_account_entitled_gpu_hours{account=\"" + teamA
                        + "\",cluster=\"" + cluster + "\",leaf=\"true\"} ") + "(\\d+\\.\\d+)")
                .contains("allot_account_fair_share_ratio{account=\"" + root + "\",cluster=\"" + cluster
                        + "\",leaf=\"false\"}"));

        // entitled since team-a's creation two whole hours ago (0.75 x 8 GPUs x 2-3 h), not a whole week
        java.util.regex.Matcher entitled = java.util.regex.Pattern.compile(java.util.regex.Pattern.quote(
                "allot_account_entitled_gpu_hours{account=\"" + teamA + "\",cluster=\"" + cluster + "\",leaf=\"true\"} ")
                + "(\\d+\\.\\d+)").matcher(given().get("/q/metrics").asString());
        assertThat(entitled.find()).isTrue();
        assertThat(Double.parseDouble(entitled.group(1))).isBetween(0.75 * 8 * 2, 0.75 * 8 * 3.1);

        // the audit replay, from the log alone, agrees with the live service
        long asOf = System.currentTimeMillis();
        JsonPath live = given().queryParam("cluster", cluster).queryParam("account", root).queryParam("asOf", asOf)
                .get("/accounting/usage").then().statusCode(200).extract().jsonPath();
        Replay.Result replay = new Replay(infra.bootstrapServers(), infra.registryUrl(), AccountingTopics.catalogue(),
                7 * 86_400_000L, null).run(null);
        Figures.Usage replayed = replay.view().usage(cluster, root, asOf);
        assertThat(replayed.chargedGpuSeconds()).isEqualTo(live.getDouble("chargedGpuSeconds"));
        assertThat(replayed.unallocatedGpuSeconds()).isEqualTo(live.getDouble("unallocatedGpuSeconds"));
        // JsonPath reads numbers as floats: owed since creation is no longer a round number
        assertThat(replayed.entitledGpuSeconds()).isCloseTo(live.getDouble("entitledGpuSeconds"),
                org.assertj.core.api.Assertions.withinPercentage(0.0001));
        Figures.Ledger replayedLedger = replay.view().ledger(cluster, teamA, hour, hour + H);
        assertThat(replayedLedger.owedGpuHours()).isEqualTo(ledger.getDouble("owedGpuHours"));
        assertThat(replayedLedger.deliveredGpuHours()).isEqualTo(ledger.getDouble("deliveredGpuHours"));

        ReplayCommand command = new ReplayCommand();
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        command.out = new PrintStream(printed, true);
        command.err = new PrintStream(OutputStream.nullOutputStream());
        int rc = new CommandLine(command).execute("--bootstrap", infra.bootstrapServers(), "--registry",
                infra.registryUrl(), "--from", Long.toString(hour), "--to", Long.toString(hour + H), "--report", "owed",
                "--cluster", cluster, "--account", teamA, "--json");
        assertThat(rc).isZero();
        JsonPath report = JsonPath.from(printed.toString());
        assertThat(report.getDouble("[0].owedGpuHours")).isEqualTo(2.0);
        assertThat(report.getDouble("[0].deliveredGpuHours")).isEqualTo(expectedA / 3600);

        ByteArrayOutputStream jobPrinted = new ByteArrayOutputStream();
        command = new ReplayCommand();
        command.out = new PrintStream(jobPrinted, true);
        command.err = new PrintStream(OutputStream.nullOutputStream());
        assertThat(new CommandLine(command).execute("--bootstrap", infra.bootstrapServers(), "--registry",
                infra.registryUrl(), "--from", Long.toString(hour), "--to", Long.toString(hour + H), "--report", "job",
                "job-b-" + id)).isZero();
        assertThat(jobPrinted.toString()).contains("job-b-" + id).containsPattern("total\\s+0\\.0\\s+600\\.0");

        // the garbage went to the dead letters, raw, and was counted
        try (Tail<DeadLetter> deadLetters = new Tail<>(infra, Topics.DEAD_LETTERS)) {
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(deadLetters.values(r ->
                    r.value().getValue() != null && new String(r.value().getValue().array()).equals(new String(garbage))))
                    .singleElement().satisfies(letter -> assertThat(letter.getReason()).startsWith("malformed")));
        }
        given().get("/q/metrics").then().statusCode(200)
                .body(containsString("allot_dead_letters_total{consumer=\"accounting-service\",kind=\"malformed\",topic=\"usage\"} 1.0"))
                .body(containsString("allot_consumer_lag_records{consumer=\"accounting-service\"}"))
                .body(containsString("allot_accounting_store_entries"));
        given().get("/q/health/ready").then().statusCode(200)
                .body(containsString(StreamsServing.NAME)).body(containsString("RUNNING"));
        assertThat(given().get("/q/metrics").asString()).contains("kafka_consumer_fetch_manager_records_lag_max{");
    }

    @Test
    @Order(3)
    void givenASecondInstanceOwningACluster_whenAskedHere_thenTheRequestIsForwardedToTheOwner() throws Exception {
        AllotInfrastructure infra = AllotInfrastructure.shared();
        List<String> forwardedQueries = new java.util.concurrent.CopyOnWriteArrayList<>();
        HttpServer owner = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        owner.createContext("/accounting/usage", exchange -> {
            forwardedQueries.add(exchange.getRequestURI().getQuery());
            byte[] body = "{\"answeredBy\":\"second\"}".getBytes();
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        owner.start();
        int port = owner.getAddress().getPort();
        String appId = ConfigProvider.getConfig().getValue("quarkus.kafka-streams.application-id", String.class);
        Properties props = AccountingStreamsMain.streamsConfig(infra.clients(), appId,
                Files.createTempDirectory("second-instance").toString(), 1);
        props.put(StreamsConfig.APPLICATION_SERVER_CONFIG, "127.0.0.1:" + port);
        KafkaStreams second = new KafkaStreams(AccountingTopology.build(AccountingSettings.defaults(),
                AccountingTopics.catalogue(), AccountingSerdes.registry(infra.registryUrl()), AccountingListener.NONE), props);
        second.start();
        try {
            String[] clusters = new String[2]; // [owned by the second instance, owned here]
            await().atMost(Duration.ofSeconds(90)).until(() -> {
                if (second.state() != KafkaStreams.State.RUNNING) {
                    return false;
                }
                for (int i = 0; i < 64; i++) {
                    KeyQueryMetadata m = second.queryMetadataForKey(AccountingTopology.ROWS_STORE,
                            Topics.accountKey("fwd-" + i, ""), new ClusterPartitioner<>());
                    if (m != KeyQueryMetadata.NOT_AVAILABLE) {
                        clusters[m.activeHost().port() == port ? 0 : 1] = "fwd-" + i;
                    }
                }
                return clusters[0] != null && clusters[1] != null;
            });
            await().atMost(Duration.ofSeconds(60)).until(() -> given().queryParam("cluster", clusters[0])
                    .queryParam("account", "x").get("/accounting/usage").statusCode() == 200);
            io.restassured.response.Response forwarded = given().queryParam("cluster", clusters[0])
                    .queryParam("account", "x").get("/accounting/usage");
            assertThat(forwarded.header("X-Allot-Answered-By")).isEqualTo("127.0.0.1:" + port);
            assertThat(forwarded.jsonPath().getString("answeredBy")).isEqualTo("second");
            assertThat(forwardedQueries).anySatisfy(q -> assertThat(q).contains("forwarded=true").contains("cluster=" + clusters[0]));

            await().atMost(Duration.ofSeconds(60)).until(() -> given().queryParam("cluster", clusters[1])
                    .queryParam("account", "x").get("/accounting/usage").statusCode() == 200);
            io.restassured.response.Response local = given().queryParam("cluster", clusters[1])
                    .queryParam("account", "x").get("/accounting/usage");
            assertThat(local.header("X-Allot-Answered-By")).isNull();
            assertThat(local.jsonPath().getString("cluster")).isEqualTo(clusters[1]);
        } finally {
            second.close(Duration.ofSeconds(20));
            owner.stop(0);
        }
    }

    @Test
    @Order(2)
    void givenNoCluster_whenQueried_thenBadRequest() {
        given().get("/accounting/tree").then().statusCode(400);
    }
}
