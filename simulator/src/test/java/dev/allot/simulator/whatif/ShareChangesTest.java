package dev.allot.simulator.whatif;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.allot.simulator.scenario.BudgetFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ShareChangesTest {

    static final BudgetFile TREE = new BudgetFile(List.of(new BudgetFile.Entry("lab", null, 1),
            new BudgetFile.Entry("lab/vision", "lab", 1), new BudgetFile.Entry("lab/robotics", "lab", 1)));

    @Test
    void givenSets_whenApplied_thenThoseSharesChangeAndTheRestStays() {
        ShareChanges c = ShareChanges.parse(List.of("lab/vision=2", "lab/robotics=3"), null);

        BudgetFile after = c.applyTo(TREE);

        assertThat(c.shares()).containsExactly(Map.entry("lab/robotics", 3.0), Map.entry("lab/vision", 2.0));
        assertThat(after.entries()).extracting(BudgetFile.Entry::share).containsExactly(1.0, 2.0, 3.0);
        assertThat(after.leafFractions()).containsEntry("lab/vision", 0.4).containsEntry("lab/robotics", 0.6);
    }

    @Test
    void givenMalformedSets_whenParsed_thenTheErrorNamesTheOptionAndWhatIsWrong() {
        assertThatThrownBy(() -> ShareChanges.parse(List.of("lab/vision"), null))
                .hasMessageContaining("--set lab/vision").hasMessageContaining("ACCOUNT=SHARE");
        assertThatThrownBy(() -> ShareChanges.parse(List.of("lab/vision=two"), null))
                .hasMessageContaining("--set lab/vision=two").hasMessageContaining("not a number");
        assertThatThrownBy(() -> ShareChanges.parse(List.of("=2"), null)).hasMessageContaining("ACCOUNT=SHARE");
    }

    @Test
    void givenSharesOutOfBounds_whenParsed_thenRefusedWithTheBounds() {
        for (String bad : List.of("lab/vision=0", "lab/vision=-1", "lab/vision=2e6", "lab/vision=NaN")) {
            assertThatThrownBy(() -> ShareChanges.parse(List.of(bad), null)).as(bad)
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--set " + bad)
                    .hasMessageContaining("from 1.0E-6 to 1000000.0");
        }
    }

    @Test
    void givenAnUnknownAccount_whenApplied_thenTheErrorNamesItAndTheKnownOnes() {
        ShareChanges c = ShareChanges.parse(List.of("lab/visoin=2"), null);

        assertThatThrownBy(() -> c.applyTo(TREE)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("unknown account lab/visoin").hasMessageContaining("lab/vision");
    }

    @Test
    void givenAYamlMappingAndAJsonList_whenParsed_thenBothReadAndSetsWinOverTheFile(@TempDir Path dir) throws Exception {
        Path yaml = Files.writeString(dir.resolve("b.yaml"), "lab/vision: 2\nlab/robotics: {share: 3}\n");
        Path json = Files.writeString(dir.resolve("b.json"), "[{\"path\": \"lab/vision\", \"share\": 5}]");

        assertThat(ShareChanges.parse(List.of(), yaml).shares())
                .containsExactly(Map.entry("lab/robotics", 3.0), Map.entry("lab/vision", 2.0));
        assertThat(ShareChanges.parse(List.of("lab/vision=7"), json).shares())
                .containsExactly(Map.entry("lab/vision", 7.0));
    }

    @Test
    void givenABadFile_whenParsed_thenTheErrorNamesTheFileAndTheAccount(@TempDir Path dir) throws Exception {
        Path text = Files.writeString(dir.resolve("b.yaml"), "lab/vision: lots\n");
        Path scalar = Files.writeString(dir.resolve("c.yaml"), "42\n");
        Path zero = Files.writeString(dir.resolve("d.json"), "{\"lab/vision\": 0}");

        assertThatThrownBy(() -> ShareChanges.parse(List.of(), text)).hasMessageContaining("--budgets " + text)
                .hasMessageContaining("share of lab/vision must be a number");
        assertThatThrownBy(() -> ShareChanges.parse(List.of(), scalar)).hasMessageContaining("expected a mapping");
        assertThatThrownBy(() -> ShareChanges.parse(List.of(), zero)).hasMessageContaining("lab/vision")
                .hasMessageContaining("from 1.0E-6");
    }
}
