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

    @Test
    void givenAUnionBranchRemoved_whenChecked_thenOldEventsOfThatTypeCannotBeRead() throws IOException {
        Schema released = SchemaEvolutionGuard.releasedSchemas("job-events").get(0);
        Schema breaking = fixture("job-events-without-job-lost.avsc");

        assertThat(SchemaEvolutionGuard.backwardIncompatibilities(breaking, released))
                .anySatisfy(problem -> assertThat(problem).contains("MISSING").contains("JobLost"));
    }

    @Test
    void givenAFieldTypeChangedFromIntToString_whenChecked_thenTheGuardFails() throws IOException {
        Schema released = SchemaEvolutionGuard.releasedSchemas("job-events").get(0);
        Schema breaking = fixture("job-events-exit-code-as-string.avsc");

        assertThat(SchemaEvolutionGuard.backwardIncompatibilities(breaking, released))
                .anySatisfy(problem -> assertThat(problem).contains("TYPE_MISMATCH").contains("exitCode"));
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
