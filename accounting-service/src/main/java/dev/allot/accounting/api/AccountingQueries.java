package dev.allot.accounting.api;

import dev.allot.accounting.book.AccountingView;
import dev.allot.accounting.streams.AccountingStreams;
import dev.allot.accounting.streams.AccountingTopology;
import dev.allot.accounting.streams.ClusterPartitioner;
import dev.allot.accounting.streams.StoreViews;
import dev.allot.schemas.catalogue.Topics;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.function.Function;
import dev.allot.edge.RegistryUnavailable;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KeyQueryMetadata;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.streams.TaskMetadata;
import org.apache.kafka.streams.ThreadMetadata;

/**
 * Instance-aware interactive queries. All accounts of a cluster live in the task that owns the
 * cluster's partition ({@link ClusterPartitioner}); Kafka Streams tells which instance that is
 * ({@code application.server} of each instance). The owner answers from its RocksDB stores; any other
 * instance forwards the same request to it over HTTP and relays the answer.
 */
@ApplicationScoped
public class AccountingQueries {

    static final String FORWARDED = "forwarded";

    @Inject
    KafkaStreams streams;
    @Inject
    AccountingStreams config;

    private volatile dev.allot.accounting.streams.BudgetReader budgetReader;

    private dev.allot.accounting.streams.BudgetReader budgetReader() {
        if (budgetReader == null) {
            budgetReader = config.budgetReader();
        }
        return budgetReader;
    }

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    public Response answer(String cluster, UriInfo uri, boolean forwarded, Function<AccountingView, Object> query) {
        if (cluster == null || cluster.isBlank()) {
            throw new WebApplicationException("cluster is required", 400);
        }
        KeyQueryMetadata owner = streams.queryMetadataForKey(AccountingTopology.ROWS_STORE,
                Topics.accountKey(cluster, ""), new ClusterPartitioner<>());
        if (owner == null || owner == KeyQueryMetadata.NOT_AVAILABLE) {
            return unavailable("no instance owns cluster " + cluster + " yet (starting or rebalancing)");
        }
        String ownerAddress = owner.activeHost().host() + ":" + owner.activeHost().port();
        if (!forwarded && !ownsLocally(owner.partition())) {
            return forward(ownerAddress, uri);
        }
        try {
            return Response.ok(query.apply(StoreViews.view(streams, cluster, config.settings(), budgetReader()))).build();
        } catch (InvalidStateStoreException notReady) {
            return unavailable("stores not queryable yet: " + notReady.getMessage());
        } catch (RegistryUnavailable registry) {
            return unavailable("budget records cannot be read yet: " + registry.getMessage());
        }
    }

    /** True when one of this instance's active tasks reads the cluster's partition of the facts topic. */
    private boolean ownsLocally(int partition) {
        for (ThreadMetadata thread : streams.metadataForLocalThreads()) {
            for (TaskMetadata task : thread.activeTasks()) {
                for (TopicPartition tp : task.topicPartitions()) {
                    if (tp.partition() == partition && tp.topic().endsWith("-" + AccountingTopology.FACTS + "-repartition")) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    private Response forward(String owner, UriInfo uri) {
        URI target = uri.getRequestUriBuilder().scheme("http").host(owner.substring(0, owner.lastIndexOf(':')))
                .port(Integer.parseInt(owner.substring(owner.lastIndexOf(':') + 1)))
                .queryParam(FORWARDED, "true").build();
        try {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(target).timeout(Duration.ofSeconds(10)).GET().build(),
                    HttpResponse.BodyHandlers.ofString());
            return Response.status(r.statusCode()).entity(r.body()).type("application/json")
                    .header("X-Allot-Answered-By", owner).build();
        } catch (Exception e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            return unavailable("owner " + owner + " did not answer: " + e.getMessage());
        }
    }

    private static Response unavailable(String why) {
        return Response.status(503).entity(new Problem(why)).type("application/json").build();
    }

    public record Problem(String error) {
    }
}
