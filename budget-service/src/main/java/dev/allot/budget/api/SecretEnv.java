package dev.allot.budget.api;

import java.util.Map;
import java.util.regex.Pattern;

/**
 * A submission's {@code secretEnv}: environment variables whose values are secrets, given by reference only,
 * {@code {"WANDB_API_KEY": "wandb"}} = variable name -> name of a secret in the node agents' secret store.
 * The value never reaches this service, Kafka or the API: the agent that starts a replica reads it on the node
 * (under the job's budget path in its store). So this only checks the names.
 */
final class SecretEnv {

    static final int MAX_ENTRIES = 64;
    private static final Pattern VARIABLE = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,127}");
    private static final Pattern SECRET = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,127}");

    private SecretEnv() {
    }

    /** The references, checked (400 naming {@code secretEnv}); empty when the field is absent. */
    static Map<String, String> read(JsonBody json, Map<String, String> env) {
        Map<String, String> refs = json.stringMap("secretEnv");
        if (refs == null) {
            return Map.of();
        }
        if (refs.size() > MAX_ENTRIES) {
            throw JsonBody.bad("secretEnv", "secretEnv has " + refs.size() + " entries; at most " + MAX_ENTRIES);
        }
        refs.forEach((variable, secret) -> {
            if (!VARIABLE.matcher(variable).matches()) {
                throw JsonBody.bad("secretEnv", "secretEnv name '" + variable
                        + "' must be 1-128 of [A-Za-z0-9_], not starting with a digit");
            }
            if (variable.equals("CUDA_VISIBLE_DEVICES") || variable.startsWith("ALLOT_") || variable.equals("PATH")) {
                throw JsonBody.bad("secretEnv", "secretEnv name '" + variable + "' is reserved");
            }
            if (env != null && env.containsKey(variable)) {
                throw JsonBody.bad("secretEnv", "'" + variable + "' is in both env and secretEnv: give it once");
            }
            if (!SECRET.matcher(secret).matches()) {
                throw JsonBody.bad("secretEnv", "secretEnv." + variable + " names a secret, not a value: 1-128 of"
                        + " [A-Za-z0-9_.-], starting with a letter or digit (the node agent reads the value from its"
                        + " secret store)");
            }
        });
        return refs;
    }
}
