package dev.allot.testsupport.deploy;

import static dev.allot.testsupport.deploy.Rendered.selects;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * Evaluates the NetworkPolicies of the 'allot' namespace the way the API defines them (a pod selected
 * by no policy of a direction is open in that direction; otherwise the union of the rules of the
 * policies that select it), for the peer kinds the manifests use: podSelector (this namespace),
 * namespaceSelector by {@code kubernetes.io/metadata.name}, both together, or no peer (everyone).
 */
final class NetworkPolicies {

    static final List<Integer> PORTS = List.of(8080, 8081, 8082, 8083, 8084, 9092, 53, 9999);
    private static final JsonNode NO_LABELS = JsonNodeFactory.instance.objectNode();

    private final List<JsonNode> policies;

    NetworkPolicies(List<JsonNode> policies) {
        this.policies = policies;
    }

    /** Whether a pod with labels {@code from} may open a connection to a pod {@code to} (both here) on port. */
    boolean allows(JsonNode from, JsonNode to, int port) {
        return open(to, "Ingress", "from", "allot", from, port) && open(from, "Egress", "to", "allot", to, port);
    }

    /** Ports (of {@link #PORTS}) on which any pod of another namespace may reach this pod. */
    Set<Integer> ingressFromNamespace(JsonNode pod, String namespace) {
        Set<Integer> ports = new TreeSet<>();
        for (int port : PORTS) {
            if (open(pod, "Ingress", "from", namespace, NO_LABELS, port)) {
                ports.add(port);
            }
        }
        return ports;
    }

    /** "namespace:port" (port "any" when the rule names none) this pod may reach outside its namespace. */
    Set<String> egressOutside(JsonNode pod) {
        Set<String> out = new TreeSet<>();
        boolean selected = false;
        for (JsonNode p : policies) {
            if (!appliesTo(p, pod, "Egress")) {
                continue;
            }
            selected = true;
            for (JsonNode rule : p.path("spec").path("egress")) {
                List<String> ports = rule.path("ports").isEmpty() ? List.of("any")
                        : rule.path("ports").findValuesAsText("port");
                if (rule.path("to").isEmpty()) {
                    ports.forEach(port -> out.add("*:" + port));
                }
                for (JsonNode peer : rule.path("to")) {
                    if (peer.has("namespaceSelector")) {
                        String ns = peer.path("namespaceSelector").path("matchLabels").path("kubernetes.io/metadata.name").asText("*");
                        ports.forEach(port -> out.add(ns + ":" + port));
                    }
                }
            }
        }
        return selected ? out : Set.of("*:any");
    }

    private boolean open(JsonNode pod, String type, String peers, String peerNamespace, JsonNode peerLabels, int port) {
        boolean selected = false;
        for (JsonNode p : policies) {
            if (!appliesTo(p, pod, type)) {
                continue;
            }
            selected = true;
            for (JsonNode rule : p.path("spec").path(type.toLowerCase())) {
                if (portMatches(rule, port) && peerMatches(rule.path(peers), peerNamespace, peerLabels)) {
                    return true;
                }
            }
        }
        return !selected;
    }

    private static boolean appliesTo(JsonNode policy, JsonNode pod, String type) {
        return selects(policy.path("spec").path("podSelector"), pod) && policyTypes(policy).contains(type);
    }

    /** spec.policyTypes; when absent, Ingress, plus Egress if the policy has egress rules (the API's default). */
    private static Set<String> policyTypes(JsonNode policy) {
        Set<String> types = new TreeSet<>();
        policy.path("spec").path("policyTypes").forEach(t -> types.add(t.asText()));
        if (types.isEmpty()) {
            types.add("Ingress");
            if (policy.path("spec").has("egress")) {
                types.add("Egress");
            }
        }
        return types;
    }

    private static boolean portMatches(JsonNode rule, int port) {
        if (rule.path("ports").isEmpty()) {
            return true;
        }
        for (JsonNode p : rule.path("ports")) {
            if (p.path("port").asInt() == port) {
                return true;
            }
        }
        return false;
    }

    private static boolean peerMatches(JsonNode peers, String namespace, JsonNode labels) {
        if (peers.isMissingNode() || peers.isEmpty()) {
            return true;
        }
        for (JsonNode peer : peers) {
            boolean nsOk = peer.has("namespaceSelector")
                    ? selects(peer.path("namespaceSelector"), namespaceLabels(namespace))
                    : namespace.equals("allot");
            boolean podOk = !peer.has("podSelector") || selects(peer.path("podSelector"), labels);
            if (nsOk && podOk && !peer.has("ipBlock")) {
                return true;
            }
        }
        return false;
    }

    private static JsonNode namespaceLabels(String namespace) {
        return JsonNodeFactory.instance.objectNode().put("kubernetes.io/metadata.name", namespace);
    }
}
