package dev.allot.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Runs one command line of the CLI in this JVM, as a person would type it, and keeps what it printed. */
final class Cli {

    record Result(int exitCode, String out, String err) {
        @Override
        public String toString() {
            return "exit " + exitCode + "\n--- stdout\n" + out + "--- stderr\n" + err;
        }
    }

    private final Map<String, String> env = new HashMap<>();
    private final List<String> common = new ArrayList<>();

    Cli(String server, String user) {
        env.put("USER", user);
        // the budget-service wants a bearer token: the user's own, with the admin group (the tests set up the tree)
        env.put("ALLOT_TOKEN", dev.allot.testsupport.TestTokens.user(user, dev.allot.testsupport.TestTokens.ADMIN_GROUP));
        env.put("COLUMNS", "120");
        env.put("HOME", System.getProperty("java.io.tmpdir") + "/allot-cli-test-home");
        common.addAll(List.of("--server", server));
    }

    Cli env(String key, String value) {
        env.put(key, value);
        return this;
    }

    Result run(String... args) {
        List<String> all = new ArrayList<>();
        // the command first, then the options every command takes
        all.add(args[0]);
        all.addAll(common);
        all.addAll(List.of(args).subList(1, args.length));
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = AllotCli.run(all.toArray(String[]::new), new PrintWriter(out), new PrintWriter(err), env);
        return new Result(code, out.toString(), err.toString());
    }
}
