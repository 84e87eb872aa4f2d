package dev.allot.cli.commands;

import com.fasterxml.jackson.databind.JsonNode;
import dev.allot.cli.ApiClient;
import dev.allot.cli.CliFailure;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * A job's output (stdout and stderr of one replica) through the API, which fetches it from the node
 * agent that ran it; {@code --follow} keeps reading until the job has finished.
 */
@Command(name = "logs", mixinStandardHelpOptions = true,
        description = {"A job's output (stdout and stderr of one replica), read from the node that runs or ran it;",
                "--follow keeps printing new output until the job ends."})
public final class LogsCommand extends ApiCommand {

    @Parameters(paramLabel = "JOB", description = "Job id.")
    String jobId;

    @Option(names = {"-r", "--replica"}, paramLabel = "N", defaultValue = "0", description = "Replica (default ${DEFAULT-VALUE}).")
    int replica;

    @Option(names = {"-f", "--follow"}, description = "Keep printing new output until the job has ended.")
    boolean follow;

    @Option(names = "--poll", paramLabel = "MILLIS", defaultValue = "1000", description = "How often --follow asks (default ${DEFAULT-VALUE} ms).")
    long pollMillis;

    @Override
    int execute(boolean json) {
        long offset = 0;
        List<JsonNode> chunks = new ArrayList<>();
        api().get("/jobs/" + ApiClient.encode(jobId)); // an unknown job is refused here, --follow or not
        while (true) {
            Map<String, Object> q = new LinkedHashMap<>();
            q.put("replica", replica);
            q.put("offset", offset);
            JsonNode chunk;
            try {
                chunk = api().get("/jobs/" + ApiClient.encode(jobId) + "/logs" + ApiClient.query(q));
            } catch (CliFailure notYet) {
                // not placed yet, or placed and its process not started: --follow waits for the output
                if (!follow || notYet.exitCode() != CliFailure.REFUSED || finished()) {
                    throw notYet;
                }
                pause();
                continue;
            }
            String text = chunk.path("text").asText("");
            long next = chunk.path("nextOffset").asLong(offset);
            if (json) {
                chunks.add(chunk);
            } else if (!text.isEmpty()) {
                out().print(text);
                out().flush();
            }
            boolean more = next > offset && chunk.path("more").asBoolean(false);
            offset = next;
            if (more) {
                continue; // the rest of what is already written: no pause
            }
            if (!follow || chunk.path("finished").asBoolean(true)) {
                break;
            }
            pause();
        }
        if (json) {
            Map<String, Object> body = new LinkedHashMap<>();
            body.put("id", jobId);
            body.put("replica", replica);
            StringBuilder all = new StringBuilder();
            chunks.forEach(c -> all.append(c.path("text").asText("")));
            body.put("nodeId", chunks.isEmpty() ? null : chunks.get(chunks.size() - 1).path("nodeId").asText(null));
            body.put("bytes", offset);
            body.put("text", all.toString());
            return printJson(body);
        }
        return 0;
    }

    private boolean finished() {
        String state = api().get("/jobs/" + ApiClient.encode(jobId)).path("state").asText();
        return !state.equals("WAITING") && !state.equals("RUNNING");
    }

    private void pause() {
        try {
            Thread.sleep(pollMillis); // --follow polls the API; there is nothing to wait on here
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CliFailure(CliFailure.OK, "interrupted");
        }
    }
}
