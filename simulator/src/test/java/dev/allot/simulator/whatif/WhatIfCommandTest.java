package dev.allot.simulator.whatif;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.allot.schemas.catalogue.Topics;
import dev.allot.testsupport.AllotInfra;
import dev.allot.testsupport.AllotInfrastructure;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code whatif} against the real broker and registry: hand-made records of a cluster of its own (2 nodes x 4 GPUs,
 * two teams, one job each that ran 1000 s, one waiting), written through the registry as the services write them.
 */
@AllotInfra
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class WhatIfCommandTest {

    AllotInfrastructure infra;
    String cluster;
    String root;
    Instant until;

    record Run(int exit, String out, String err) {
    }

    @BeforeAll
    void aRecordedLog(AllotInfrastructure infra) throws Exception {
        this.infra = infra;
        String id = UUID.randomUUID().toString().substring(0, 6);
        cluster = "wi-" + id;
        root = "lab" + id;
        // the window: the last hour before 'until'; the records sit inside it
        until = Instant.now().plusSeconds(3600);
        double base = (until.minusSeconds(3000).toEpochMilli() - Records.T0.toEpochMilli()) / 1000.0;
        try (KafkaProducer<String, SpecificRecord> p = infra.producer()) {
            send(p, Topics.NODE_STATUS.name(), "n1", Records.registered(cluster + "-n1", cluster, 4, base - 100));
            send(p, Topics.NODE_STATUS.name(), "n2", Records.registered(cluster + "-n2", cluster, 4, base - 100));
            send(p, Topics.BUDGETS.name(), root, Records.defined(root, null, 1, base - 100));
            send(p, Topics.BUDGETS.name(), root + "/a", Records.defined(root + "/a", root, 1, base - 100));
            send(p, Topics.BUDGETS.name(), root + "/b", Records.defined(root + "/b", root, 1, base - 100));
            for (String team : List.of("a", "b")) {
                String job = cluster + "-" + team;
                send(p, Topics.JOB_REQUESTS.name(), job,
                        Records.submitted(job, root + "/" + team, cluster, 1, 4, 1800, true, null, base));
                send(p, Topics.JOB_EVENTS.name(), job, Records.placed(job, root + "/" + team, cluster, base));
                send(p, Topics.JOB_EVENTS.name(), job, Records.completed(job, base + 1000));
            }
            String waiting = cluster + "-w";
            send(p, Topics.JOB_REQUESTS.name(), waiting,
                    Records.submitted(waiting, root + "/a", cluster, 2, 4, 1800, true, 600L, base + 1500));
        }
        try (KafkaProducer<byte[], byte[]> raw = new KafkaProducer<>(Map.of("bootstrap.servers", infra.bootstrapServers()),
                new ByteArraySerializer(), new ByteArraySerializer())) {
            raw.send(new ProducerRecord<>(Topics.JOB_EVENTS.name(), "garbage".getBytes(StandardCharsets.UTF_8),
                    "not avro".getBytes(StandardCharsets.UTF_8))).get();
        }
    }

    private static void send(KafkaProducer<String, SpecificRecord> p, String topic, String key, SpecificRecord value)
            throws Exception {
        p.send(new ProducerRecord<>(topic, key, value)).get();
    }

    Run whatif(String... args) {
        WhatIfCommand cmd = new WhatIfCommand();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        cmd.stdout = new PrintStream(out, true, StandardCharsets.UTF_8);
        StringWriter err = new StringWriter();
        CommandLine cl = WhatIfCommand.commandLine(cmd);
        cl.setErr(new PrintWriter(err, true));
        List<String> all = new ArrayList<>(List.of("--bootstrap", infra.bootstrapServers(), "--registry",
                infra.registryUrl(), "--until", until.toString(), "--days", String.valueOf(1 / 24.0)));
        all.addAll(List.of(args));
        int exit = cl.execute(all.toArray(String[]::new));
        return new Run(exit, out.toString(StandardCharsets.UTF_8), err.toString());
    }

    @Test
    void givenTheRecordedLog_whenAShareChanges_thenJsonPerTeamBeforeAndAfterAndTheReportIsWritten(@TempDir Path dir)
            throws Exception {
        Run r = whatif("--cluster", cluster, "--set", root + "/a=3", "-o", "json", "--out", dir.toString());

        assertThat(r.exit()).as(r.err()).isZero();
        JsonNode json = new ObjectMapper().readTree(r.out());
        assertThat(json.at("/window/nodes").asInt()).isEqualTo(2);
        assertThat(json.at("/window/gpusPerNode").asInt()).isEqualTo(4);
        assertThat(json.at("/trace/jobs").asInt()).isEqualTo(3);
        assertThat(json.at("/trace/waitingDeclared").asInt()).isEqualTo(1);
        assertThat(json.at("/trace/undecodableRecords").asInt()).isGreaterThanOrEqualTo(1);
        assertThat(json.at("/changes/" + root.replace("/", "~1") + "~1a").asDouble()).isEqualTo(3.0);
        JsonNode a = json.at("/teams/0");
        assertThat(a.get("team").asText()).isEqualTo(root + "/a");
        assertThat(a.at("/recorded/deliveredGpuHours").asDouble()).isCloseTo(4000 / 3600.0, org.assertj.core.api.Assertions.within(1e-9));
        assertThat(a.at("/recorded/completed").asInt()).isEqualTo(1);
        // 1/2 -> 3/4 of the root (the root's own fraction depends on what other roots the shared broker holds)
        assertThat(a.at("/after/fraction").asDouble() / a.at("/before/fraction").asDouble())
                .isCloseTo(1.5, org.assertj.core.api.Assertions.within(1e-9));
        // the replay of the tree as recorded: both jobs ran 1000 s on 4 GPUs, the waiting one 600 s on 8
        assertThat(a.at("/before/deliveredGpuHours").asDouble()).isCloseTo((4000 + 4800) / 3600.0,
                org.assertj.core.api.Assertions.within(1e-9));
        assertThat(json.at("/teams/1/before/deliveredGpuHours").asDouble()).isCloseTo(4000 / 3600.0,
                org.assertj.core.api.Assertions.within(1e-9));
        for (String f : List.of("report.html", "summary.json", "details.json", "whatif.json", "trace.csv")) {
            assertThat(dir.resolve(f)).isNotEmptyFile();
        }
        assertThat(Files.readString(dir.resolve("report.html"))).contains("as recorded").contains("proposed");
    }

    @Test
    void givenTheRecordedLog_whenPrintedAsATable_thenOneLinePerTeamWithBeforeAndAfter() {
        Run r = whatif("--cluster", cluster, "--set", root + "/a=3", "--width", "250");

        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).contains("whatif: cluster " + cluster).contains(root + "/a 1 → 3")
                .containsPattern("\\d+\\.\\d% → \\d+\\.\\d%").contains("delivered GPU-h");
        assertThat(r.out().lines().filter(l -> l.startsWith(root + "/"))).hasSize(2);

        Run narrow = whatif("--cluster", cluster, "--set", root + "/a=3", "--width", "40");
        assertThat(narrow.out()).contains("\n  share").contains("\n  delivered GPU-h");
    }

    @Test
    void givenAnUnknownAccount_whenRun_thenExit2NamingIt() {
        Run r = whatif("--cluster", cluster, "--set", root + "/nope=2");

        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("unknown account " + root + "/nope");
        assertThat(r.out()).isEmpty();
    }

    @Test
    void givenAnUnknownCluster_whenRun_thenExit2NamingTheOption() {
        Run r = whatif("--cluster", "no-such-cluster");

        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("--cluster no-such-cluster");
    }

    @Test
    void givenNoBrokerListening_whenRun_thenExit3NamingTheAddress() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        WhatIfCommand cmd = new WhatIfCommand();
        StringWriter err = new StringWriter();
        CommandLine cl = WhatIfCommand.commandLine(cmd);
        cl.setErr(new PrintWriter(err, true));

        int exit = cl.execute("--bootstrap", "127.0.0.1:" + port, "--timeout-seconds", "2");

        assertThat(exit).isEqualTo(3);
        assertThat(err.toString()).contains("127.0.0.1:" + port).contains("did not answer");
    }
}
