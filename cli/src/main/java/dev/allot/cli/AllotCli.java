package dev.allot.cli;

import dev.allot.cli.commands.CancelCommand;
import dev.allot.cli.commands.DrainCommand;
import dev.allot.cli.commands.HistoryCommand;
import dev.allot.cli.commands.JobsCommand;
import dev.allot.cli.commands.LogsCommand;
import dev.allot.cli.commands.NodesCommand;
import dev.allot.cli.commands.SharesCommand;
import dev.allot.cli.commands.SubmitCommand;
import dev.allot.cli.commands.TopCommand;
import dev.allot.cli.commands.UndrainCommand;
import dev.allot.cli.commands.UsageCommand;
import dev.allot.cli.commands.WhyCommand;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * {@code allot}: the user's view of Allot over its public API. Exit codes: 0 ok, 1 refused,
 * 2 bad usage, 3 unreachable.
 */
@Command(name = "allot", mixinStandardHelpOptions = true, version = "allot 0.1.0",
        description = "Allot's command line: submit jobs, see the queue and why a job waits, the budget tree,"
                + " usage, nodes; drain nodes.",
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {"0:ok", "1:refused by the service (unknown job, not allowed, finished, ...)",
                "2:bad usage (an option or a field of the request; the message names it)",
                "3:the service cannot be reached (or Kafka behind it does not answer)"},
        subcommands = {SubmitCommand.class, JobsCommand.class, WhyCommand.class, SharesCommand.class,
                UsageCommand.class, NodesCommand.class, CancelCommand.class, DrainCommand.class,
                UndrainCommand.class, HistoryCommand.class, LogsCommand.class, TopCommand.class,
                CommandLine.HelpCommand.class})
public final class AllotCli implements Runnable {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "a command is required");
    }

    public static void main(String[] args) {
        PrintWriter out = new PrintWriter(System.out, true, StandardCharsets.UTF_8);
        PrintWriter err = new PrintWriter(System.err, true, StandardCharsets.UTF_8);
        System.exit(run(args, out, err, System.getenv()));
    }

    /** Runs one command line with the given streams and environment; returns the exit code. */
    public static int run(String[] args, PrintWriter out, PrintWriter err, Map<String, String> env) {
        Globals.env = env;
        CommandLine cli = new CommandLine(new AllotCli());
        cli.setOut(out);
        cli.setErr(err);
        cli.setExecutionExceptionHandler((e, commandLine, parsed) -> {
            if (e instanceof CliFailure failure) {
                commandLine.getErr().println("allot: " + failure.getMessage());
                commandLine.getErr().flush();
                return failure.exitCode();
            }
            commandLine.getErr().println("allot: " + e);
            commandLine.getErr().flush();
            return CliFailure.REFUSED;
        });
        int code = cli.execute(args);
        out.flush();
        err.flush();
        return code;
    }
}
