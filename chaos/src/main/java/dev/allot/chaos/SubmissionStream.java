package dev.allot.chaos;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * A steady stream of submissions for several teams through the budget-service's API ({@code POST /jobs}), as
 * people's scripts would send them: a seeded mix of short jobs (1 to 4 GPUs, allocated and free, a few gangs of
 * two, some meant to fail with exit 3). What the API acknowledged (202) is recorded; a refusal while a component
 * is down (503, no answer) is counted, not retried: the submitter would see it.
 */
public final class SubmissionStream implements Runnable {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final String api;
    private final String token;
    private final String cluster;
    private final List<String> teams;
    private final double perSecond;
    private final Random random;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private final ConcurrentLinkedQueue<String> acknowledged = new ConcurrentLinkedQueue<>();
    private final AtomicInteger refused = new AtomicInteger();
    private final Consumer<String> onAcknowledged;
    private volatile boolean stopped;

    /**
     * @param api            the budget-service's base URL
     * @param token          a bearer token of a member of every team
     * @param teams          leaf budget paths
     * @param onAcknowledged told each acknowledged job id (e.g. appends it to the driver's file)
     */
    public SubmissionStream(String api, String token, String cluster, List<String> teams, double perSecond, long seed,
                            Consumer<String> onAcknowledged) {
        this.api = api;
        this.token = token;
        this.cluster = cluster;
        this.teams = List.copyOf(teams);
        this.perSecond = perSecond;
        this.random = new Random(seed);
        this.onAcknowledged = onAcknowledged;
    }

    public List<String> acknowledged() {
        return new ArrayList<>(acknowledged);
    }

    public int refused() {
        return refused.get();
    }

    public void stop() {
        stopped = true;
    }

    /** Submits at the rate until {@link #stop()}; each submission waits for its answer (at most 15 s). */
    @Override
    public void run() {
        long period = Math.round(1_000_000_000L / perSecond);
        long next = System.nanoTime();
        int i = 0;
        while (!stopped) {
            submit(job(i++));
            next += period;
            long wait = next - System.nanoTime();
            if (wait > 0) {
                java.util.concurrent.locks.LockSupport.parkNanos(wait);  // pacing, not synchronisation
            } else {
                next = System.nanoTime();  // an answer that took longer than the period: no burst to catch up
            }
        }
    }

    /** The i-th job of the seeded mix. */
    Map<String, Object> job(int i) {
        Map<String, Object> job = new LinkedHashMap<>();
        job.put("budget", teams.get(i % teams.size()));
        job.put("cluster", cluster);
        int kind = random.nextInt(20);
        int seconds = 3 + random.nextInt(10);
        int replicas = 1, gpus = 1, minRuntime = 30;
        boolean resumable = true;
        List<String> command = List.of("sleep", String.valueOf(seconds));
        if (kind < 2) {            // meant to fail: the verdict must be FAILED
            command = List.of("sh", "-c", "sleep 2; exit 3");
        } else if (kind < 6) {     // free sweeps that soak up idle GPUs
            gpus = 2;
            minRuntime = 0;
        } else if (kind < 8) {     // larger and longer
            gpus = 4;
            minRuntime = 60;
            command = List.of("sleep", String.valueOf(seconds + 5));
        } else if (kind < 9) {     // a gang of two nodes
            replicas = 2;
            gpus = 2;
        } else if (kind < 11) {    // not resumable
            resumable = false;
        }
        job.put("replicas", replicas);
        job.put("gpusPerReplica", gpus);
        job.put("minRuntimeSeconds", minRuntime);
        job.put("resumable", resumable);
        job.put("priority", random.nextInt(3));
        job.put("command", command);
        job.put("expectedDurationSeconds", seconds);
        return job;
    }

    private void submit(Map<String, Object> job) {
        try {
            HttpRequest request = HttpRequest.newBuilder(URI.create(api + "/jobs"))
                    .timeout(Duration.ofSeconds(15)).header("Content-Type", "application/json")
                    .header("Authorization", "Bearer " + token)
                    .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(job))).build();
            HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() == 202) {
                JsonNode body = JSON.readTree(response.body());
                String id = body.path("id").asText();
                acknowledged.add(id);
                onAcknowledged.accept(id);
            } else {
                refused.incrementAndGet();
            }
        } catch (IOException e) {
            refused.incrementAndGet();  // nobody answered: the budget-service is down or restarting
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            stopped = true;
        }
    }
}
