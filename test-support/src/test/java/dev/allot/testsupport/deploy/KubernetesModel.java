package dev.allot.testsupport.deploy;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.introspect.Annotated;
import com.fasterxml.jackson.databind.introspect.JacksonAnnotationIntrospector;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.openshift.api.model.monitoring.v1.PodMonitor;
import java.util.Map;

/**
 * The Kubernetes API's object schemas, offline: fabric8's generated model of each API version and kind
 * the manifests use. Reading is strict: the model's catch-all for unknown fields is switched off, so a
 * misspelt or misplaced field, a wrong type or an unknown enum-free value shape is an error naming it.
 */
final class KubernetesModel {

    /** apiVersion/kind -> model class. A kind not listed here is an error: add its model, do not skip it. */
    static final Map<String, Class<? extends HasMetadata>> KINDS = Map.ofEntries(
            Map.entry("v1/Namespace", Namespace.class),
            Map.entry("v1/ConfigMap", ConfigMap.class),
            Map.entry("v1/Secret", Secret.class),
            Map.entry("v1/Service", Service.class),
            Map.entry("apps/v1/Deployment", Deployment.class),
            Map.entry("apps/v1/StatefulSet", StatefulSet.class),
            Map.entry("apps/v1/DaemonSet", DaemonSet.class),
            Map.entry("autoscaling/v2/HorizontalPodAutoscaler", HorizontalPodAutoscaler.class),
            Map.entry("policy/v1/PodDisruptionBudget", PodDisruptionBudget.class),
            Map.entry("networking.k8s.io/v1/NetworkPolicy", NetworkPolicy.class),
            Map.entry("monitoring.coreos.com/v1/PodMonitor", PodMonitor.class));

    private static final ObjectMapper STRICT = new ObjectMapper()
            .setAnnotationIntrospector(new JacksonAnnotationIntrospector() {
                @Override
                public Boolean hasAnySetter(Annotated a) {
                    return Boolean.FALSE; // fabric8 keeps unknown fields in additionalProperties; refuse them
                }
            })
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
            .enable(DeserializationFeature.FAIL_ON_READING_DUP_TREE_KEY);

    private KubernetesModel() {
    }

    /** The object read into its model; throws naming the object and the offending field. */
    static HasMetadata read(JsonNode doc) {
        String key = doc.path("apiVersion").asText() + "/" + doc.path("kind").asText();
        Class<? extends HasMetadata> type = KINDS.get(key);
        if (type == null) {
            throw new IllegalArgumentException("no schema for " + key + " (" + doc.path("metadata").path("name")
                    + "); known: " + KINDS.keySet());
        }
        try {
            return STRICT.treeToValue(doc, type);
        } catch (Exception e) {
            throw new IllegalArgumentException(key + " " + doc.path("metadata").path("name").asText()
                    + " does not match the Kubernetes schema: " + e.getMessage(), e);
        }
    }
}
