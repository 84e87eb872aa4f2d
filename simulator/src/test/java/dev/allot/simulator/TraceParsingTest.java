package dev.allot.simulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.allot.simulator.trace.CsvTrace;
import dev.allot.simulator.trace.MiniJson;
import dev.allot.simulator.trace.PhillyGavelTrace;
import dev.allot.simulator.trace.TraceJob;
import java.io.BufferedReader;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TraceParsingTest {

    static final Path SHARED = Path.of("/work/shared/traces/philly-gavel");

    private static String line(String type, long steps, double arrival, int gpus) {
        return type + "\tcd %s && python3 train.py\t-step\t1\t" + steps + "\t" + arrival + "\t" + gpus;
    }

    @Test
    void phillyDurationIsStepsOverThroughputWithOneGpuFallback(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve(PhillyGavelTrace.THROUGHPUTS), """
                {"k80": {"('A (batch size 1)', 1)": {"null": 1.0}},
                 "v100": {"('A (batch size 1)', 1)": {"null": 2.0, "('B', 1)": [1.0, 2.0]},
                          "('A (batch size 1)', 4)": {"null": 6.0},
                          "('B (batch size 2)', 1)": {"null": 0.5}}}
                """);
        Files.writeString(dir.resolve("team1.trace"), String.join("\n",
                line("A (batch size 1)", 1000, 10.0, 1),   // 1000 / 2 = 500 s
                line("A (batch size 1)", 1000, 20.5, 4),   // 1000 / 6 = 166.7 -> 167 s
                line("A (batch size 1)", 1000, 30.0, 16),  // no (A,16): 1-GPU entry -> 500 s, 2 x 8
                line("B (batch size 2)", 10, 0.0, 12)) + "\n"); // fallback 10 / 0.5 = 20 s, 2 x 6
        Files.writeString(dir.resolve("team2.trace"), line("B (batch size 2)", 3, 5.0, 2) + "\n");
        List<TraceJob> jobs = PhillyGavelTrace.read(dir, 8);
        assertThat(jobs).hasSize(5);
        TraceJob a = jobs.get(0);
        assertThat(a.jobId()).isEqualTo("team1-1");
        assertThat(a.team()).isEqualTo("team1");
        assertThat(a.submitSeconds()).isEqualTo(10);
        assertThat(a.durationSeconds()).isEqualTo(500);
        assertThat(a.minRuntimeSeconds()).isEqualTo(-1);
        assertThat(a.resumable()).isNull();
        assertThat(jobs.get(1).durationSeconds()).isEqualTo(167);
        assertThat(jobs.get(1).submitSeconds()).isEqualTo(20);
        assertThat(jobs.get(2).durationSeconds()).isEqualTo(500);
        assertThat(jobs.get(2).replicas()).isEqualTo(2);
        assertThat(jobs.get(2).gpusPerReplica()).isEqualTo(8);
        assertThat(jobs.get(3).durationSeconds()).isEqualTo(20);
        assertThat(jobs.get(3).replicas()).isEqualTo(2);
        assertThat(jobs.get(3).gpusPerReplica()).isEqualTo(6);
        assertThat(jobs.get(4).team()).isEqualTo("team2");
        assertThat(jobs.get(4).durationSeconds()).isEqualTo(6);
    }

    @Test
    void gangShapes() {
        assertThat(PhillyGavelTrace.gangShape(8, 8)).containsExactly(1, 8);
        assertThat(PhillyGavelTrace.gangShape(3, 8)).containsExactly(1, 3);
        assertThat(PhillyGavelTrace.gangShape(20, 8)).containsExactly(4, 5);
        assertThat(PhillyGavelTrace.gangShape(24, 8)).containsExactly(3, 8);
        assertThat(PhillyGavelTrace.gangShape(64, 8)).containsExactly(8, 8);
    }

    @Test
    void csvFormatIgnoresExtraColumnsAndLeavesMissingContractsOpen() throws Exception {
        String csv = """
                # a comment
                kind,job_id,team,submit_s,gpus_per_replica,replicas,duration_s,min_runtime_s,resumable,owner
                train,j1,nlp,0,8,2,3600,7200,true,alice
                debug,j2,vision,12.7,1,1,600,600,false,bob
                train,j3,nlp,30,4,1,99.5,,,carol
                """;
        List<TraceJob> jobs = CsvTrace.parse(new BufferedReader(new StringReader(csv)), "t.csv");
        assertThat(jobs).hasSize(3);
        assertThat(jobs.get(0)).isEqualTo(new TraceJob("j1", "nlp", 0, 8, 2, 3600, 7200, true, false));
        assertThat(jobs.get(1)).isEqualTo(new TraceJob("j2", "vision", 12, 1, 1, 600, 600, false, true));
        assertThat(jobs.get(2)).isEqualTo(new TraceJob("j3", "nlp", 30, 4, 1, 100, -1, null, false));
    }

    @Test
    void csvWithoutARequiredColumnIsRefused() {
        String csv = "job_id,team,submit_s,gpus_per_replica,replicas,duration_s,resumable,kind\nj,t,0,1,1,1,,train\n";
        assertThatThrownBy(() -> CsvTrace.parse(new BufferedReader(new StringReader(csv)), "bad.csv"))
                .hasMessageContaining("min_runtime_s");
    }

    @Test
    void miniJsonReadsNestedValues() {
        Object v = MiniJson.parse("{\"a\": [1, 2.5e1, -3], \"b\": {\"c\": \"x\\\"y\\u0041\"}, \"d\": null, \"e\": true}");
        assertThat(v).isInstanceOf(Map.class);
        Map<?, ?> m = (Map<?, ?>) v;
        assertThat(m.get("a")).isEqualTo(List.of(1.0, 25.0, -3.0));
        assertThat(((Map<?, ?>) m.get("b")).get("c")).isEqualTo("x\"yA");
        assertThat(m.get("d")).isNull();
        assertThat(m.get("e")).isEqualTo(true);
        assertThatThrownBy(() -> MiniJson.parse("{\"a\": 1,}")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void theSharedTraceLoadsWithTheReadmeFigures() {
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.isDirectory(SHARED), "shared trace not present");
        List<TraceJob> jobs = PhillyGavelTrace.read(SHARED, 8);
        assertThat(jobs).hasSize(15_264);
        assertThat(jobs.stream().map(TraceJob::team).distinct().count()).isEqualTo(15);
        long[] d = jobs.stream().mapToLong(TraceJob::durationSeconds).sorted().toArray();
        double medianHours = d[d.length / 2] / 3600.0;
        double p90Hours = d[(int) (d.length * 0.9)] / 3600.0;
        // README: median about 3.1 h, p90 about 54 h
        assertThat(medianHours).isBetween(2.8, 3.4);
        assertThat(p90Hours).isBetween(50.0, 58.0);
    }
}
