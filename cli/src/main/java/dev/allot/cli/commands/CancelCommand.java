package dev.allot.cli.commands;

import com.fasterxml.jackson.databind.JsonNode;
import dev.allot.cli.ApiClient;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** Asks the scheduler to cancel a job (JobCancelRequested). */
@Command(name = "cancel", aliases = "scancel", mixinStandardHelpOptions = true,
        description = "Cancel a job: the scheduler stops it if it runs and takes it out of the queue.")
public final class CancelCommand extends ApiCommand {

    @Parameters(paramLabel = "JOB", description = "Job id.")
    String jobId;

    @Option(names = "--reason", paramLabel = "TEXT", description = "Why (kept in the job's history).")
    String reason;

    @Override
    int execute(boolean json) {
        JsonNode answer = api().delete("/jobs/" + ApiClient.encode(jobId)
                + ApiClient.query(reason == null ? Map.of() : Map.of("reason", reason)));
        return json ? printJson(answer) : print("cancel requested for " + jobId + " ('allot history " + jobId
                + "' shows when it ends)\n");
    }
}
