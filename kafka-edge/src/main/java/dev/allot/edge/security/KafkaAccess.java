package dev.allot.edge.security;

import dev.allot.schemas.catalogue.Topic;
import dev.allot.schemas.catalogue.Topics;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;

/**
 * Who may do what on Allot's broker: the one ACL table, used by the broker's set-up (local, compose,
 * Kubernetes) and by the tests that prove it. One SCRAM principal per service, each allowed exactly the
 * topics it writes and the topics it reads; the broker itself ({@link #ADMIN}) is the only super user.
 * Everything not listed is denied ({@code allow.everyone.if.no.acl.found=false}).
 *
 * <p>A principal's consumer groups, transactional ids and own topics are name prefixes: a scheduler's
 * group and transactional id are {@code allot-scheduler-<cluster>}, the accounting-service's Kafka Streams
 * internals all start with its application id {@code allot-accounting...}.
 */
public enum KafkaAccess {

    /** node-status: the drain and undrain requests of {@code POST /nodes/{id}/drain}. */
    BUDGET_SERVICE("budget-service",
            List.of(Topics.BUDGETS, Topics.JOB_REQUESTS, Topics.NODE_STATUS, Topics.DEAD_LETTERS),
            Topics.ALL, List.of(), List.of(), List.of()),

    /** node-status: {@code NodeDrained}; the group and transactional id are {@code allot-scheduler-<cluster>}. */
    SCHEDULER_SERVICE("scheduler-service",
            List.of(Topics.JOB_EVENTS, Topics.NODE_COMMANDS, Topics.NODE_STATUS, Topics.QUEUE_STATUS,
                    Topics.ACCOUNT_DEMAND, Topics.DEAD_LETTERS),
            List.of(Topics.BUDGETS, Topics.NODE_STATUS, Topics.BUDGET_USAGE, Topics.JOB_EVENTS, Topics.JOB_REQUESTS),
            List.of("allot-scheduler-"), List.of("allot-scheduler-"), List.of()),

    NODE_AGENT("node-agent",
            List.of(Topics.NODE_STATUS, Topics.JOB_EVENTS, Topics.USAGE, Topics.DEAD_LETTERS),
            List.of(Topics.NODE_COMMANDS), List.of(), List.of(), List.of()),

    /** Kafka Streams: its application id prefixes its group, transactional ids and internal topics. */
    ACCOUNTING_SERVICE("accounting-service",
            List.of(Topics.BUDGET_USAGE, Topics.DEAD_LETTERS),
            List.of(Topics.USAGE, Topics.BUDGETS, Topics.NODE_STATUS, Topics.ACCOUNT_DEMAND),
            List.of("allot-accounting"), List.of("allot-accounting"), List.of("allot-accounting")),

    /** Read-only on every catalogue topic, for tools (audit, replay, simulate) and people; groups of its own. */
    ANALYST("analyst", List.of(), Topics.ALL, List.of("analyst-", "allot-replay-", "console-consumer-"), List.of(),
            List.of());

    /** The broker's own principal (inter-broker, controller) and the operator's: the only super user. */
    public static final String ADMIN = "admin";

    private final String principal;
    private final List<Topic<String, ?>> writes;
    private final List<Topic<String, ?>> reads;
    private final List<String> groupPrefixes;
    private final List<String> transactionalIdPrefixes;
    private final List<String> ownTopicPrefixes;

    KafkaAccess(String principal, List<Topic<String, ?>> writes, List<Topic<String, ?>> reads,
                List<String> groupPrefixes, List<String> transactionalIdPrefixes, List<String> ownTopicPrefixes) {
        this.principal = principal;
        this.writes = writes;
        this.reads = reads;
        this.groupPrefixes = groupPrefixes;
        this.transactionalIdPrefixes = transactionalIdPrefixes;
        this.ownTopicPrefixes = ownTopicPrefixes;
    }

    /** The SCRAM user name, e.g. {@code budget-service}. */
    public String principal() {
        return principal;
    }

    public List<Topic<String, ?>> writes() {
        return writes;
    }

    public List<Topic<String, ?>> reads() {
        return reads;
    }

    /** Every user name a broker needs a SCRAM credential for: {@link #ADMIN} first, then each principal. */
    public static List<String> users() {
        List<String> users = new ArrayList<>(List.of(ADMIN));
        Arrays.stream(values()).map(KafkaAccess::principal).forEach(users::add);
        return users;
    }

    /** The principal of a user name, e.g. {@code analyst}. */
    public static KafkaAccess of(String principal) {
        return Arrays.stream(values()).filter(a -> a.principal.equals(principal)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no Kafka principal '" + principal + "'; known: "
                        + Arrays.stream(values()).map(KafkaAccess::principal).collect(Collectors.joining(", "))));
    }

    /** This principal's ACLs (all ALLOW, from any host). */
    public List<AclBinding> bindings() {
        List<AclBinding> acls = new ArrayList<>();
        for (Topic<String, ?> topic : writes) {
            acls.add(allow(ResourceType.TOPIC, topic.name(), PatternType.LITERAL, AclOperation.WRITE));
        }
        for (Topic<String, ?> topic : reads) {
            acls.add(allow(ResourceType.TOPIC, topic.name(), PatternType.LITERAL, AclOperation.READ));
        }
        for (String prefix : groupPrefixes) {
            acls.add(allow(ResourceType.GROUP, prefix, PatternType.PREFIXED, AclOperation.READ));
        }
        for (String prefix : transactionalIdPrefixes) {
            acls.add(allow(ResourceType.TRANSACTIONAL_ID, prefix, PatternType.PREFIXED, AclOperation.WRITE));
        }
        for (String prefix : ownTopicPrefixes) {
            acls.add(allow(ResourceType.TOPIC, prefix, PatternType.PREFIXED, AclOperation.ALL));
        }
        return acls;
    }

    /** Every principal's ACLs. */
    public static List<AclBinding> all() {
        return Arrays.stream(values()).flatMap(a -> a.bindings().stream()).toList();
    }

    private AclBinding allow(ResourceType type, String name, PatternType pattern, AclOperation operation) {
        return new AclBinding(new ResourcePattern(type, name, pattern),
                new AccessControlEntry("User:" + principal, "*", operation, AclPermissionType.ALLOW));
    }

    /** The table as Markdown, as docs/architecture.md shows it (a test keeps the two equal). */
    public static String markdownTable() {
        StringBuilder table = new StringBuilder("| principal | writes | reads | groups | transactional ids | own topics |\n"
                + "|---|---|---|---|---|---|\n");
        for (KafkaAccess a : values()) {
            table.append("| `").append(a.principal).append("` | ").append(names(a.writes)).append(" | ")
                    .append(a.reads.equals(Topics.ALL) ? "every topic" : names(a.reads)).append(" | ")
                    .append(prefixes(a.groupPrefixes)).append(" | ").append(prefixes(a.transactionalIdPrefixes))
                    .append(" | ").append(prefixes(a.ownTopicPrefixes)).append(" |\n");
        }
        return table.toString();
    }

    private static String names(List<Topic<String, ?>> topics) {
        return topics.isEmpty() ? "—" : topics.stream().map(t -> "`" + t.name() + "`").collect(Collectors.joining(", "));
    }

    private static String prefixes(List<String> prefixes) {
        return prefixes.isEmpty() ? "—" : prefixes.stream().map(p -> "`" + p + "*`").collect(Collectors.joining(", "));
    }
}
