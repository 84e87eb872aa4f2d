package dev.allot.budget;

import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.equalTo;

import dev.allot.schemas.JobRequest;
import dev.allot.schemas.JobSubmitted;
import dev.allot.schemas.catalogue.Topics;
import dev.allot.testsupport.AllotInfraTestResource;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

/** {@code secretEnv}: secrets by reference. Only names reach the log and the API; bad names are refused. */
@QuarkusTest
@QuarkusTestResource(value = AllotInfraTestResource.class, restrictToAnnotatedClass = false)
class SecretEnvApiTest {

    private static String job(String id, String budget, String secretEnv) {
        return "{\"id\":\"" + id + "\",\"budget\":\"" + budget + "\",\"cluster\":\"local\",\"replicas\":1,"
                + "\"gpusPerReplica\":1,\"minRuntimeSeconds\":0,\"command\":[\"true\"],\"env\":{\"PLAIN\":\"1\"},"
                + "\"secretEnv\":" + secretEnv + "}";
    }

    @Test
    void givenSecretReferences_whenAJobIsSubmitted_thenOnlyTheNamesAreInTheLog_andBadReferencesAre400NamingSecretEnv() {
        String org = TestLog.uniquePrefix();
        String team = org + "/team";
        BudgetApiTest.put(org, "{\"share\":1}", 200);
        BudgetApiTest.put(team, "{\"share\":1,\"members\":[\"erin\"]}", 200);
        Api.nodeOf("local");

        Api.as("erin").contentType(ContentType.JSON)
                .body(job(org + "-ok", team, "{\"WANDB_API_KEY\":\"wandb\",\"HF_TOKEN\":\"hf.token-1\"}"))
                .when().post("/jobs").then().statusCode(202);
        List<ConsumerRecord<String, JobRequest>> log = TestLog.read(Topics.JOB_REQUESTS, (org + "-ok")::equals,
                seen -> !seen.isEmpty());
        JobSubmitted submitted = (JobSubmitted) log.get(0).value().getPayload();
        assertThat(submitted.getSecretEnv()).isEqualTo(Map.of("WANDB_API_KEY", "wandb", "HF_TOKEN", "hf.token-1"));
        assertThat(submitted.getEnv()).isEqualTo(Map.of("PLAIN", "1"));

        String[] refused = {
                "{\"1BAD\":\"s\"}",                        // not a variable name
                "{\"ALLOT_JOB_TOKEN\":\"s\"}",             // the agent's
                "{\"CUDA_VISIBLE_DEVICES\":\"s\"}",        // the agent's
                "{\"PLAIN\":\"s\"}",                       // also in env
                "{\"KEY\":\"sk-live value with spaces\"}", // a value, not a secret's name
                "{\"KEY\":\"../../etc/shadow\"}",          // a path, not a name
                "{\"KEY\":1}",                             // not a string
        };
        Map<String, Integer> expected = new TreeMap<>(Map.of(org + "-ok", 1));
        for (int i = 0; i < refused.length; i++) {
            Api.as("erin").contentType(ContentType.JSON).body(job(org + "-bad" + i, team, refused[i]))
                    .when().post("/jobs").then().statusCode(400).body("field", equalTo("secretEnv"));
            expected.put(org + "-bad" + i, 0);
        }
        assertThat(TestLog.countsByKey(Topics.JOB_REQUESTS, org, expected)).isEqualTo(expected);
    }
}
