package dev.allot.simulator;

import static dev.allot.simulator.SimulationEndToEndTest.HEADER;
import static dev.allot.simulator.SimulationEndToEndTest.json;
import static dev.allot.simulator.SimulationEndToEndTest.mixedTrace;
import static dev.allot.simulator.SimulationEndToEndTest.run;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code --checkpoint-on-notice}: a job that checkpoints when told to stop keeps all its work. */
class CheckpointOnNoticeTest {

    @SuppressWarnings("unchecked")
    private static Map<String, Object> summary(Path out) throws Exception {
        return json(out.resolve("summary.json"));
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> budget(Path out) throws Exception {
        return (Map<String, Object>) ((Map<String, Object>) summary(out).get("policies")).get("budget");
    }

    /**
     * One node of 8 GPUs. Team a's unallocated, resumable 8-GPU job starts at 0; at 1000 s team b's allocated
     * 8-GPU job arrives and displaces it (unallocated work is preemptible at any time), before its first
     * checkpoint at 1800 s.
     */
    private static Path oneUnallocatedVictim(Path dir, String notice) throws Exception {
        Path trace = dir.resolve("t.csv");
        Files.writeString(trace, HEADER + "u,a,0,8,1,20000,0,true,train\n" + "p,b,1000,8,1,3600,3600,false,train\n");
        Path out = dir.resolve("out-" + notice);
        assertThat(run("--trace", trace.toString(), "--format", "csv", "--days", "0.5", "--nodes", "1", "--out",
                out.toString(), "--policies", "budget", "--debug-per-team-hour", "0", "--quiet", "--warmup-days", "0",
                "--variants", "none", "--checkpoint-on-notice", notice)).isZero();
        return out;
    }

    @Test
    @SuppressWarnings("unchecked")
    void aVictimThatCheckpointsOnNoticeLosesNothing(@TempDir Path dir) throws Exception {
        // when the victim does not checkpoint on notice, it loses its 1000 s on 8 GPUs
        Map<String, Object> without = budget(oneUnallocatedVictim(dir, "0"));
        assertThat(without.get("preemptions")).isEqualTo(1.0);
        assertThat((Double) without.get("lostGpuHours")).isCloseTo(8 * 1000 / 3600.0, within(1e-6));
        // when every resumable job checkpoints on notice, the same preemption happens and loses nothing
        Path out = oneUnallocatedVictim(dir, "1");
        Map<String, Object> with = budget(out);
        assertThat(with.get("preemptions")).isEqualTo(1.0);
        assertThat(with.get("lostGpuHours")).isEqualTo(0.0);
        assertThat(with.get("lostShare")).isEqualTo(0.0);
        assertThat(((Map<String, Object>) summary(out).get("scenario")).get("checkpointOnNotice")).isEqualTo(1.0);
        // and it kept its progress: it resumes with 19,000 s left instead of 20,000, so the run holds 1000 s x 8 GPUs less
        double heldWithout = (Double) without.get("occupancy") * 8 * 12;
        double heldWith = (Double) with.get("occupancy") * 8 * 12;
        assertThat(heldWithout - heldWith).isCloseTo(8 * 1000 / 3600.0, within(2e-4));
    }

    @Test
    void onTheMixedWorkloadHalfTheResumableJobsCheckpointingLowersTheirLossAndZeroChangesNothing(@TempDir Path dir)
            throws Exception {
        Path trace = dir.resolve("trace.csv");
        Files.writeString(trace, mixedTrace());
        List<String> common = List.of("--trace", trace.toString(), "--format", "csv", "--days", "2", "--load", "2.5",
                "--policies", "budget", "--quiet", "--warmup-days", "0", "--variants", "none");
        List<String> summaries = new ArrayList<>();
        for (String notice : new String[] {null, "0", "0.5", "1"}) {
            List<String> args = new ArrayList<>(common);
            args.addAll(List.of("--out", dir.resolve("out-" + notice).toString()));
            if (notice != null) {
                args.addAll(List.of("--checkpoint-on-notice", notice));
            }
            assertThat(run(args.toArray(String[]::new))).isZero();
            summaries.add(Files.readString(dir.resolve("out-" + notice).resolve("summary.json"))
                    .replaceAll("\"wallSeconds\": [0-9.]+", "\"wallSeconds\": X"));
        }
        // then an explicit 0 is the default, byte for byte
        assertThat(summaries.get(1)).isEqualTo(summaries.get(0));
        Map<String, Object> zero = budget(dir.resolve("out-0"));
        Map<String, Object> half = budget(dir.resolve("out-0.5"));
        Map<String, Object> all = budget(dir.resolve("out-1"));
        assertThat((Double) zero.get("lostGpuHoursResumable")).as("the scenario loses resumable work").isPositive();
        // (what the resumable victims lose: the runs' other figures differ too, since a job that checkpointed
        // is a cheaper victim, and the total may go either way with them: +17 GPU-hours of non-resumable
        // work on this trace with the victim and reservation rules of 2026-12-07)
        assertThat((Double) half.get("lostGpuHoursResumable")).isLessThan((Double) zero.get("lostGpuHoursResumable"));
        // with every resumable job checkpointing on notice only non-resumable victims lose anything
        assertThat(all.get("lostGpuHoursResumable")).isEqualTo(0.0);
        assertThat((Double) all.get("lostGpuHours")).isCloseTo((Double) all.get("lostGpuHoursNonResumable"),
                within(1e-6));
    }
    @Test
    @SuppressWarnings("unchecked")
    void aNoticeVariantIsTheBudgetRunWithThatShare(@TempDir Path dir) throws Exception {
        Path trace = dir.resolve("trace.csv");
        Files.writeString(trace, mixedTrace());
        List<String> common = List.of("--trace", trace.toString(), "--format", "csv", "--days", "2", "--load", "2.5",
                "--policies", "budget", "--quiet", "--warmup-days", "0");
        // when the default run carries a notice-0.5 variant, and another run uses 0.5 itself
        List<String> withVariant = new ArrayList<>(common);
        withVariant.addAll(List.of("--variants", "notice-0.5", "--out", dir.resolve("v").toString()));
        assertThat(run(withVariant.toArray(String[]::new))).isZero();
        List<String> direct = new ArrayList<>(common);
        direct.addAll(List.of("--variants", "none", "--checkpoint-on-notice", "0.5", "--out", dir.resolve("d").toString()));
        assertThat(run(direct.toArray(String[]::new))).isZero();
        // then the variant's figures are those of the direct run
        Map<String, Object> details = json(dir.resolve("v").resolve("details.json"));
        List<Object> runs = (List<Object>) details.get("runs");
        Map<String, Object> variant = (Map<String, Object>) runs.get(1);
        assertThat(variant.get("variant")).isEqualTo("notice-0.5");
        assertThat(variant.get("metrics")).isEqualTo(budget(dir.resolve("d")));
        assertThat(((Map<String, Object>) runs.get(0)).get("metrics")).isEqualTo(budget(dir.resolve("v")));
        Map<String, Object> listed = (Map<String, Object>) ((List<Object>) details.get("variants")).get(0);
        assertThat(listed.get("name")).isEqualTo("notice-0.5");
        assertThat(listed.get("checkpointOnNotice")).isEqualTo(0.5);
        assertThat(Files.readString(dir.resolve("v").resolve("report.html"))).contains("<th>notice-0.5</th>");
    }

    @Test
    void aShareOutside0To1IsRefusedWithOneLineAndNothingWritten(@TempDir Path dir) throws Exception {
        Path trace = dir.resolve("trace.csv");
        Files.writeString(trace, mixedTrace());
        for (String[] bad : new String[][] {{"--checkpoint-on-notice", "1.5"}, {"--variants", "notice-x"},
            {"--variants", "notice-2"}}) {
            Path out = dir.resolve("out");
            java.io.StringWriter err = new java.io.StringWriter();
            picocli.CommandLine cl = SimulateCommand.commandLine();
            cl.setErr(new java.io.PrintWriter(err));
            ((SimulateCommand) cl.getCommand()).stderr = new java.io.PrintStream(new java.io.ByteArrayOutputStream());
            ((SimulateCommand) cl.getCommand()).stdout = new java.io.PrintStream(new java.io.ByteArrayOutputStream());
            int rc = cl.execute("--trace", trace.toString(), "--format", "csv", "--days", "1", "--quiet", "--out",
                    out.toString(), bad[0], bad[1]);
            assertThat(rc).as(String.join(" ", bad)).isEqualTo(2);
            String names = bad[0].equals("--variants") ? "notice-" : "--checkpoint-on-notice";
            assertThat(err.toString()).startsWith("simulate: ").contains(names).contains("0..1");
            assertThat(err.toString().strip().lines()).hasSize(1);
            assertThat(out).doesNotExist();
        }
    }
}
