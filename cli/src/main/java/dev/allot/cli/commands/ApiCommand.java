package dev.allot.cli.commands;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.allot.cli.ApiClient;
import dev.allot.cli.CliFailure;
import dev.allot.cli.Globals;
import java.io.PrintWriter;
import java.time.Instant;
import java.util.concurrent.Callable;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** What every command shares: the global options, the API client, text or JSON output. */
abstract class ApiCommand implements Callable<Integer> {

    static final ObjectMapper PRETTY = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    @Mixin
    Globals globals;

    @Spec
    CommandSpec spec;

    private ApiClient api;

    ApiClient api() {
        if (api == null) {
            api = globals.api();
        }
        return api;
    }

    PrintWriter out() {
        return spec.commandLine().getOut();
    }

    Instant now() {
        return Instant.now();
    }

    int width() {
        return globals.width();
    }

    int printJson(Object value) {
        try {
            out().println(PRETTY.writeValueAsString(value));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
        out().flush();
        return CliFailure.OK;
    }

    int print(String text) {
        out().print(text);
        if (!text.endsWith("\n")) {
            out().println();
        }
        out().flush();
        return CliFailure.OK;
    }

    @Override
    public final Integer call() {
        return execute(globals.json());
    }

    /** Does the command; prints JSON for scripts when {@code json}, else text for people. */
    abstract int execute(boolean json);

    static boolean present(JsonNode node) {
        return node != null && !node.isNull() && !node.isMissingNode();
    }
}
