package dev.allot.schemas;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.schemas.catalogue.Topic;
import dev.allot.schemas.catalogue.Topics;
import dev.allot.schemas.evolution.SchemaEvolutionGuard;
import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import org.apache.avro.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.FieldSource;

/** Schema evolution is guarded: today's schemas read everything ever released (BACKWARD). */
class SchemaEvolutionTest {

    static final List<Topic<String, ?>> topics = Topics.ALL;

    @ParameterizedTest(name = "{0}")
    @FieldSource("topics")
    void currentSchemaReadsEveryReleasedVersion(Topic<String, ?> topic) {
        List<Schema> released = SchemaEvolutionGuard.releasedSchemas(topic.name());
        assertThat(released).as("released versions of %s", topic.name()).isNotEmpty();
        Schema current = SchemaEvolutionGuard.currentSchema(topic);
        for (Schema old : released) {
            assertThat(SchemaEvolutionGuard.backwardIncompatibilities(current, old)).isEmpty();
        }
    }

    @Test
    void wholeCatalogueIsCompatible() {
        assertThat(SchemaEvolutionGuard.checkCatalogue()).isEmpty();
    }

    @Test
    void givenANewRequiredFieldWithoutDefault_whenChecked_thenTheGuardFailsNamingTheField() throws IOException {
        Schema released = SchemaEvolutionGuard.releasedSchemas("job-requests").get(0);
        Schema breaking = fixture("job-requests-new-required-field.avsc");

        List<String> problems = SchemaEvolutionGuard.backwardIncompatibilities(breaking, released);

        assertThat(problems).singleElement().asString()
                .contains("READER_FIELD_MISSING_DEFAULT_VALUE").contains("JobSubmitted").contains("queueName");
    }

    /** A union branch removed (old events of that type cannot be read); a field's type changed from int to string. */
    @org.junit.jupiter.params.ParameterizedTest(name = "{0}")
    @org.junit.jupiter.params.provider.CsvSource({
            "job-events-without-job-lost.avsc, MISSING, JobLost",
            "job-events-exit-code-as-string.avsc, TYPE_MISMATCH, exitCode"})
    void givenABreakingChange_whenChecked_thenTheGuardNamesTheProblemAndThePlace(String fixture, String problemKind,
            String place) throws IOException {
        Schema released = SchemaEvolutionGuard.releasedSchemas("job-events").get(0);
        Schema breaking = fixture(fixture);

        assertThat(SchemaEvolutionGuard.backwardIncompatibilities(breaking, released))
                .anySatisfy(problem -> assertThat(problem).contains(problemKind).contains(place));
    }

    @Test
    void givenAnOptionalFieldWithDefault_whenChecked_thenTheChangeIsAccepted() throws IOException {
        Schema released = SchemaEvolutionGuard.releasedSchemas("job-requests").get(0);
        Schema compatible = fixture("job-requests-new-optional-field.avsc");

        assertThat(SchemaEvolutionGuard.backwardIncompatibilities(compatible, released)).isEmpty();
    }

    private static Schema fixture(String name) throws IOException {
        try (InputStream in = SchemaEvolutionTest.class.getResourceAsStream("/fixtures/" + name)) {
            return new Schema.Parser().parse(in);
        }
    }
}
