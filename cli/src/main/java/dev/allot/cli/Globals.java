package dev.allot.cli;

import java.nio.file.Path;
import java.util.Map;
import picocli.CommandLine.Option;

/** The options every command takes: where the API is, who calls, how to print. */
public final class Globals {

    /** Set by {@link AllotCli#run}: the environment the command sees (tests pass their own). */
    static Map<String, String> env = System.getenv();

    @Option(names = "--server", paramLabel = "URL",
            description = "The Allot API (budget-service); default $ALLOT_SERVER or http://127.0.0.1:8081.")
    String server;

    @Option(names = "--token", paramLabel = "TOKEN",
            description = "Bearer token; default $ALLOT_TOKEN, else the file 'bin/allot login' wrote"
                    + " ($ALLOT_HOME/token, ./.allot/token, ~/.allot/token).")
    String token;

    @Option(names = "--user", paramLabel = "NAME", description = "Who you are for 'mine' and for writes; default the"
            + " token's name, else $USER. With a token the API records the token's name: a different --user is refused.")
    String user;

    @Option(names = {"-o", "--output"}, paramLabel = "text|json", defaultValue = "text",
            description = "text (tables sized to the terminal) or json (for scripts). Default: ${DEFAULT-VALUE}.")
    String output;

    @Option(names = "--width", paramLabel = "COLUMNS",
            description = "Table width; default $COLUMNS, else the terminal's, else 120.")
    Integer width;

    public Map<String, String> env() {
        return env;
    }

    public boolean json() {
        if (!"json".equals(output) && !"text".equals(output)) {
            throw CliFailure.usage("-o/--output must be 'text' or 'json', not '" + output + "'");
        }
        return "json".equals(output);
    }

    /**
     * Who "my jobs" are and who a write is claimed for: {@code --user}, else the name in the token (the name
     * the API records), else $USER. The name is claimed in the request's headers only when {@code --user}
     * says so or there is no token: a login name that differs from the token's would only get the request
     * refused.
     */
    public ApiClient api() {
        String url = server != null ? server : env.getOrDefault("ALLOT_SERVER", "http://127.0.0.1:8081");
        java.util.Optional<String> bearer = TokenSource.resolve(token, env, Path.of("").toAbsolutePath());
        boolean explicit = user != null && !user.isBlank();
        String name = explicit ? user : bearer.flatMap(TokenSource::name).orElseGet(() -> {
            String login = env.getOrDefault("USER", "");
            return login.isBlank() ? "anonymous" : login;
        });
        return new ApiClient(url, bearer, name, explicit || bearer.isEmpty());
    }

    public int width() {
        if (width != null) {
            if (width < 40) {
                throw CliFailure.usage("--width must be at least 40 columns, not " + width);
            }
            return width;
        }
        return Terminal.columns(env);
    }
}
