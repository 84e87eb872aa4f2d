package dev.allot.testsupport;

import dev.allot.edge.security.KafkaAccess;
import dev.allot.edge.security.KafkaSecurity;
import dev.allot.schemas.catalogue.TopicCreator;
import dev.allot.schemas.catalogue.Topics;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.ListTopicsOptions;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.config.ConfigResource;

/**
 * A single-node KRaft broker's directory, the one recipe behind {@code bin/allot infra up} and the tests'
 * secured broker ({@link SecuredBroker}): {@code server.properties}, the SCRAM credentials of every
 * principal in {@link KafkaAccess} (one Kafka client properties file each under {@code credentials/},
 * mode 0600, generated once), the storage formatted with those credentials ({@code kafka-storage format
 * --add-scram}), and, once the broker runs, the catalogue topics and the ACL table.
 *
 * <p>Secured: a {@code SASL_PLAINTEXT} listener with SCRAM-SHA-512 for clients and the broker itself, the
 * controller listener with SASL/PLAIN for the broker's own principal only ({@value KafkaAccess#ADMIN}, the
 * one super user), the {@code StandardAuthorizer} with {@code allow.everyone.if.no.acl.found=false}.
 * Plaintext: no authentication, no authorizer (the test suite's default, {@code ALLOT_KAFKA_SECURITY=plaintext}).
 *
 * <p>{@code LocalBroker prepare DIR PORT CONTROLLER_PORT secured|plaintext} and {@code LocalBroker setup BOOTSTRAP}
 * are what {@code bin/allot infra up} (and the broker image of compose) runs around {@code kafka.Kafka}.
 *
 * <p>Two layouts: the controller in the broker's process ({@link Layout#COMBINED}: the tests' brokers, the image), or
 * in a process of its own ({@link Layout#CONTROLLER_APART}: {@code bin/allot}, whose chaos SIGKILLs the broker), see
 * {@link Layout}.
 */
public final class LocalBroker {

    /**
     * Segment size of {@code __consumer_offsets} and {@code __transaction_state} (Kafka's default: 100 MiB). A
     * coordinator reads its whole partition when it takes it over, at every broker start; compaction only cleans
     * rolled segments, and the services' transactional offset commits (the accounting-service commits every 100 ms)
     * grew one partition to 13 MB, 106,000 records, in a few hours: a 2.4 s load. A SIGKILLed broker restarted
     * within its old registration's session leads its partitions for a moment, is fenced, and leads them again
     * (leader epochs 24, 25, 26 within a second); when the first load finished after that, Kafka 4.1.2's group
     * coordinator applied it and failed the partition for good ("state machine ... out of sync with the underlying
     * log", "No in-memory snapshot for epoch 0"): NOT_COORDINATOR for that partition's groups and transaction markers
     * retried forever, until the broker's next restart (chaos 2026-12-06 run 10 and 19:43). Small segments keep
     * these topics compacted, so the load takes milliseconds and ends before the leadership moves again.
     */
    static final int COORDINATOR_SEGMENT_BYTES = 1024 * 1024;


    /**
     * Where the KRaft controller runs. A combined broker-controller SIGKILLed and restarted within its old
     * registration's session (the 3 s {@code bin/allot} sets) replays its own metadata log and leads its partitions
     * under the dead registration, is fenced when that session ends and leads them again half a second later (leader
     * epochs 24, 25, 26 within a second). A coordinator load spanning that flap can fail its partition for good in
     * Kafka 4.1.2 (see {@link #COORDINATOR_SEGMENT_BYTES}). A controller in its own process outlives the broker's
     * kill: it fences the dead broker once its session ends, and a broker started after that leads every partition
     * once, under one new epoch (one started sooner finds itself still the registered leader and flaps as before).
     */
    public enum Layout {
        /** {@code process.roles=broker,controller}, node 1, one process, {@code server.properties}. */
        COMBINED,
        /** Broker node 1 ({@code server.properties}) and controller node 2 ({@code controller/server.properties}). */
        CONTROLLER_APART
    }

    static final String BROKER_NODE = "1";
    static final String CONTROLLER_NODE = "2";

    private final Path dir;
    private final int port;
    private final int controllerPort;
    private final boolean secured;
    private final String listenHost;
    private final String advertisedHost;
    private final Layout layout;

    /** A broker on loopback only. */
    public LocalBroker(Path dir, int port, int controllerPort, boolean secured) {
        this(dir, port, controllerPort, secured, "127.0.0.1", "127.0.0.1");
    }

    /** @param listenHost where it binds ({@code 0.0.0.0} in a container); @param advertisedHost how clients reach it */
    public LocalBroker(Path dir, int port, int controllerPort, boolean secured, String listenHost, String advertisedHost) {
        this(dir, port, controllerPort, secured, listenHost, advertisedHost, Layout.COMBINED);
    }

    private LocalBroker(Path dir, int port, int controllerPort, boolean secured, String listenHost,
                        String advertisedHost, Layout layout) {
        this.dir = dir;
        this.port = port;
        this.controllerPort = controllerPort;
        this.secured = secured;
        this.listenHost = listenHost;
        this.advertisedHost = advertisedHost;
        this.layout = layout;
    }

    /** The same broker with its controller in a process of its own (once {@link #prepare}d: {@link #layout()}). */
    public LocalBroker withControllerApart() {
        return new LocalBroker(dir, port, controllerPort, secured, listenHost, advertisedHost, Layout.CONTROLLER_APART);
    }

    public String bootstrapServers() {
        return advertisedHost + ":" + port;
    }

    public Path serverProperties() {
        return dir.resolve("server.properties");
    }

    /** The controller's directory when it runs apart: its {@code server.properties} and metadata log. */
    public Path controllerDir() {
        return dir.resolve("controller");
    }

    /** The controller's configuration when it runs apart ({@link Layout#CONTROLLER_APART}). */
    public Path controllerProperties() {
        return controllerDir().resolve("server.properties");
    }

    /**
     * The layout the storage was formatted in ({@code layout} file; storage formatted before it existed is
     * combined), else the one asked for.
     */
    public Layout layout() throws IOException {
        Path file = dir.resolve("layout");
        if (Files.exists(file)) {
            return Layout.valueOf(Files.readString(file).strip());
        }
        return Files.exists(dir.resolve("data").resolve("meta.properties")) ? Layout.COMBINED : layout;
    }

    public Path credentialsDir() {
        return dir.resolve("credentials");
    }

    /** The client properties file of one user ({@code credentials/<user>.properties}). */
    public Path credentialsFile(String user) {
        return credentialsDir().resolve(user + ".properties");
    }

    /** How {@code user} authenticates to this broker ({@link KafkaSecurity#PLAINTEXT} when not secured). */
    public KafkaSecurity security(String user) {
        if (!secured) {
            return KafkaSecurity.PLAINTEXT;
        }
        return KafkaSecurity.fromClientProperties(KafkaSecurity.load(credentialsFile(user)));
    }

    /**
     * Writes the credentials (kept if present), {@code server.properties} (and the controller's, when apart) and
     * formats the storage if it is not yet. Refuses storage formatted in the other mode: its SCRAM credentials (or
     * their absence) are fixed at format time. Storage formatted in the other layout keeps it (its metadata log
     * holds the topics; a new controller would not know them): {@link #layout()} says which one was written.
     */
    public void prepare() throws IOException {
        Files.createDirectories(dir);
        Path data = dir.resolve("data");
        Path mode = dir.resolve("security");
        String wanted = secured ? "scram" : "plaintext";
        boolean formatted = Files.exists(data.resolve("meta.properties"));
        if (formatted) {
            String was = Files.exists(mode) ? Files.readString(mode).strip() : "plaintext";
            if (!was.equals(wanted)) {
                throw new IllegalStateException("the broker's storage in " + data + " was formatted " + was
                        + " and " + wanted + " is asked; 'bin/allot infra reset' deletes it (or set ALLOT_KAFKA_SECURITY="
                        + was + ")");
            }
        }
        Map<String, String> passwords = secured ? credentials() : Map.of();
        Layout used = layout();
        String admin = passwords.get(KafkaAccess.ADMIN);
        writeProperties(serverProperties(), serverConfig(admin, used));
        if (used == Layout.CONTROLLER_APART) {
            Files.createDirectories(controllerDir());
            writeProperties(controllerProperties(), controllerConfig(admin));
        }
        if (!formatted) {
            if (used == Layout.CONTROLLER_APART) {
                format(controllerProperties(), passwords); // the SCRAM users go into the controller's metadata log
                format(serverProperties(), Map.of());
            } else {
                format(serverProperties(), passwords);
            }
            Files.writeString(mode, wanted + "\n");
            Files.writeString(dir.resolve("layout"), used + "\n");
        }
    }

    /** The broker's configuration; with the controller listener too when {@code combined}. */
    Map<String, String> serverConfig(String adminPassword, Layout in) {
        boolean combined = in == Layout.COMBINED;
        Map<String, String> c = new LinkedHashMap<>();
        c.put("process.roles", combined ? "broker,controller" : "broker");
        c.put("node.id", BROKER_NODE);
        c.put("controller.quorum.voters", (combined ? BROKER_NODE : CONTROLLER_NODE) + "@" + advertisedHost + ":"
                + controllerPort);
        c.put("controller.listener.names", "CONTROLLER");
        c.put("log.dirs", dir.resolve("data").toString());
        c.put("num.partitions", "1");
        c.put("offsets.topic.replication.factor", "1");
        c.put("offsets.topic.num.partitions", "3");
        c.put("transaction.state.log.replication.factor", "1");
        c.put("transaction.state.log.min.isr", "1");
        c.put("transaction.state.log.num.partitions", "3");
        c.put("share.coordinator.state.topic.replication.factor", "1");
        c.put("offsets.topic.segment.bytes", Integer.toString(COORDINATOR_SEGMENT_BYTES));
        c.put("transaction.state.log.segment.bytes", Integer.toString(COORDINATOR_SEGMENT_BYTES));
        c.put("group.initial.rebalance.delay.ms", "0");
        c.put("auto.create.topics.enable", "false");
        String controllerListener = combined ? ",CONTROLLER://" + listenHost + ":" + controllerPort : "";
        if (!secured) {
            c.put("listeners", "PLAINTEXT://" + listenHost + ":" + port + controllerListener);
            c.put("advertised.listeners", "PLAINTEXT://" + advertisedHost + ":" + port);
            c.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
            c.put("inter.broker.listener.name", "PLAINTEXT");
            return c;
        }
        c.put("listeners", "SASL_PLAINTEXT://" + listenHost + ":" + port + controllerListener);
        c.put("advertised.listeners", "SASL_PLAINTEXT://" + advertisedHost + ":" + port);
        c.put("listener.security.protocol.map", "SASL_PLAINTEXT:SASL_PLAINTEXT,CONTROLLER:SASL_PLAINTEXT");
        c.put("inter.broker.listener.name", "SASL_PLAINTEXT");
        c.put("sasl.enabled.mechanisms", KafkaSecurity.SCRAM_MECHANISM);
        c.put("sasl.mechanism.inter.broker.protocol", KafkaSecurity.SCRAM_MECHANISM);
        c.put("listener.name.sasl_plaintext." + KafkaSecurity.SCRAM_MECHANISM.toLowerCase() + ".sasl.jaas.config",
                KafkaSecurity.jaas("org.apache.kafka.common.security.scram.ScramLoginModule", KafkaAccess.ADMIN,
                        adminPassword));
        securedController(c, adminPassword);
        return c;
    }

    /** The controller's configuration when it runs apart: node 2, the controller listener, the metadata log only. */
    Map<String, String> controllerConfig(String adminPassword) {
        Map<String, String> c = new LinkedHashMap<>();
        c.put("process.roles", "controller");
        c.put("node.id", CONTROLLER_NODE);
        c.put("controller.quorum.voters", CONTROLLER_NODE + "@" + advertisedHost + ":" + controllerPort);
        c.put("controller.listener.names", "CONTROLLER");
        c.put("listeners", "CONTROLLER://" + listenHost + ":" + controllerPort);
        c.put("log.dirs", controllerDir().resolve("data").toString());
        c.put("listener.security.protocol.map", "CONTROLLER:" + (secured ? "SASL_PLAINTEXT" : "PLAINTEXT"));
        if (secured) {
            securedController(c, adminPassword);
        }
        return c;
    }

    /** The controller listener's SASL/PLAIN and the authorizer, on the broker and on a controller apart alike. */
    private static void securedController(Map<String, String> c, String adminPassword) {
        // SCRAM credentials live in the metadata log, which a controller cannot read before it is up: the
        // controller listener uses PLAIN with the one user it knows from its own configuration.
        c.put("listener.name.controller.sasl.enabled.mechanisms", "PLAIN");
        c.put("sasl.mechanism.controller.protocol", "PLAIN");
        c.put("listener.name.controller.plain.sasl.jaas.config",
                KafkaSecurity.jaas("org.apache.kafka.common.security.plain.PlainLoginModule", KafkaAccess.ADMIN,
                        adminPassword).replaceFirst(";$", " user_" + KafkaAccess.ADMIN + "=\"" + adminPassword + "\";"));
        c.put("authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer");
        c.put("allow.everyone.if.no.acl.found", "false");
        c.put("super.users", "User:" + KafkaAccess.ADMIN);
    }

    /** Every user's password, generated on first use and kept in its client properties file. */
    private Map<String, String> credentials() throws IOException {
        Path credentials = credentialsDir();
        Files.createDirectories(credentials);
        Files.setPosixFilePermissions(credentials, PosixFilePermissions.fromString("rwx------"));
        Map<String, String> passwords = new LinkedHashMap<>();
        SecureRandom random = new SecureRandom();
        for (String user : KafkaAccess.users()) {
            Path file = credentialsFile(user);
            String password;
            if (Files.exists(file)) {
                password = passwordIn(KafkaSecurity.load(file).getProperty("sasl.jaas.config", ""), file);
            } else {
                byte[] secret = new byte[24];
                random.nextBytes(secret);
                password = HexFormat.of().formatHex(secret);
            }
            passwords.put(user, password);
            // rewritten every time: the port may have changed
            Properties client = new Properties();
            KafkaSecurity.scram(user, password).clientConfig().forEach((k, v) -> client.setProperty(k, v.toString()));
            client.setProperty("bootstrap.servers", bootstrapServers());
            writeProperties(file, toMap(client));
        }
        return passwords;
    }

    private static String passwordIn(String jaas, Path file) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("password=\"([^\"]*)\"").matcher(jaas);
        if (!m.find()) {
            throw new IllegalStateException(file + " has no password in its sasl.jaas.config");
        }
        return m.group(1);
    }

    private void format(Path properties, Map<String, String> passwords) throws IOException {
        Path clusterIdFile = dir.resolve("cluster.id");
        if (!Files.exists(clusterIdFile)) {
            Files.writeString(clusterIdFile, Uuid.randomUuid().toString());
        }
        // --ignore-formatted: a controller formatted by a prepare that failed before the broker's format
        List<String> args = new ArrayList<>(List.of("format", "-t", Files.readString(clusterIdFile).strip(), "-c",
                properties.toString(), "--ignore-formatted"));
        passwords.forEach((user, password) -> {
            args.add("--add-scram");
            args.add(KafkaSecurity.SCRAM_MECHANISM + "=[name=" + user + ",password=" + password + "]");
        });
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int rc = kafka.tools.StorageTool.execute(args.toArray(String[]::new), new PrintStream(out, true,
                StandardCharsets.UTF_8));
        if (rc != 0) {
            throw new IllegalStateException("kafka storage format failed (" + rc + "): " + out.toString(StandardCharsets.UTF_8));
        }
    }

    /** Creates the catalogue topics and, when secured, the ACL table; as the super user. Idempotent. */
    public void setUp() {
        setUp(bootstrapServers(), security(KafkaAccess.ADMIN));
    }

    /**
     * Creates the catalogue topics and, when {@code admin} authenticates (a secured broker), the ACL table of
     * {@link KafkaAccess}. Idempotent. For any broker: {@code bin/allot infra up}'s, compose's, a cluster's.
     */
    public static void setUp(String bootstrapServers, KafkaSecurity admin) {
        Map<String, Object> config = new LinkedHashMap<>(admin.clientConfig());
        config.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        try (Admin client = Admin.create(config)) {
            TopicCreator.createTopics(client, Topics.ALL, (short) 1);
            smallCoordinatorSegments(client);
            if (admin.authenticated()) {
                client.createAcls(KafkaAccess.all()).all().get();
                awaitAclsServed(client);
            }
        } catch (ExecutionException e) {
            throw new IllegalStateException("could not set up the broker (topics, coordinator segments, ACLs): " + e.getCause().getMessage(), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /**
     * Until the broker answers with the whole ACL table: the controller commits it, and a broker in a process of its
     * own ({@link Layout#CONTROLLER_APART}) applies it a moment later; a client writing at once was refused
     * ({@code ControllerApartTest}).
     */
    private static void awaitAclsServed(Admin client) throws ExecutionException, InterruptedException {
        Set<org.apache.kafka.common.acl.AclBinding> wanted = Set.copyOf(KafkaAccess.all());
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(30);
        while (!client.describeAcls(org.apache.kafka.common.acl.AclBindingFilter.ANY).values().get()
                .containsAll(wanted)) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the broker did not serve the ACL table within 30 s of its creation");
            }
            Thread.sleep(50);
        }
    }

    /**
     * The group and transaction coordinators' topics roll a segment per {@link #COORDINATOR_SEGMENT_BYTES}, also
     * where they were made with Kafka's 100 MiB (a broker prepared before this setting): see the constant. Topics
     * not made yet are left alone (the broker makes them with the setting).
     */
    static void smallCoordinatorSegments(Admin client) throws ExecutionException, InterruptedException {
        Set<String> exist = client.listTopics(new ListTopicsOptions().listInternal(true)).names().get();
        Map<ConfigResource, Collection<AlterConfigOp>> alter = new LinkedHashMap<>();
        for (String topic : List.of("__consumer_offsets", "__transaction_state")) {
            if (exist.contains(topic)) {
                alter.put(new ConfigResource(ConfigResource.Type.TOPIC, topic), List.of(new AlterConfigOp(
                        new ConfigEntry("segment.bytes", Integer.toString(COORDINATOR_SEGMENT_BYTES)),
                        AlterConfigOp.OpType.SET)));
            }
        }
        if (!alter.isEmpty()) {
            client.incrementalAlterConfigs(alter).all().get();
        }
    }

    private static Map<String, String> toMap(Properties properties) {
        Map<String, String> map = new LinkedHashMap<>();
        properties.stringPropertyNames().stream().sorted().forEach(k -> map.put(k, properties.getProperty(k)));
        return map;
    }

    /** Writes {@code key=value} lines (values escaped as {@link Properties} reads them); mode 0600 (they hold passwords). */
    private static void writeProperties(Path file, Map<String, String> values) throws IOException {
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        Files.deleteIfExists(tmp);
        Files.createFile(tmp, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        try (Writer out = Files.newBufferedWriter(tmp)) {
            for (Map.Entry<String, String> e : values.entrySet()) {
                out.write(e.getKey() + "=" + e.getValue().replace("\\", "\\\\") + "\n");
            }
        }
        Files.move(tmp, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING,
                java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    }

    /**
     * {@code prepare [--controller-apart] DIR PORT CONTROLLER_PORT secured|plaintext [LISTEN_HOST [ADVERTISED_HOST]]}
     * (prints the layout written: {@code COMBINED} or {@code CONTROLLER_APART}), or {@code setup BOOTSTRAP}: topics
     * and ACLs, as the client {@code ALLOT_KAFKA_CONFIG} names (the admin's client properties; unset: plaintext,
     * topics only).
     */
    public static void main(String[] argv) throws Exception {
        boolean apart = argv.length > 1 && argv[0].equals("prepare") && argv[1].equals("--controller-apart");
        String[] args = apart ? java.util.stream.Stream.concat(java.util.stream.Stream.of("prepare"),
                java.util.Arrays.stream(argv, 2, argv.length)).toArray(String[]::new) : argv;
        try {
            if (args.length == 2 && args[0].equals("setup")) {
                KafkaSecurity admin = KafkaSecurity.fromEnvironment();
                setUp(args[1], admin);
                Topics.ALL.forEach(t -> System.out.printf("%-16s partitions=%d cleanup=%s key=%s value=%s%n", t.name(),
                        t.partitions(), t.cleanupPolicy().kafkaName(), t.keyMeaning(), t.valueType().getSimpleName()));
                if (admin.authenticated()) {
                    System.out.print(KafkaAccess.markdownTable());
                }
                return;
            }
            if (args.length < 5 || args.length > 7 || !args[0].equals("prepare")
                    || !(args[4].equals("secured") || args[4].equals("plaintext"))) {
                System.err.println("usage: LocalBroker prepare [--controller-apart] DIR PORT CONTROLLER_PORT secured|plaintext"
                        + " [LISTEN_HOST [ADVERTISED_HOST]] | setup BOOTSTRAP   (ALLOT_KAFKA_CONFIG: the admin's client properties)");
                System.exit(2);
            }
            String listen = args.length > 5 ? args[5] : "127.0.0.1";
            String advertised = args.length > 6 ? args[6] : listen;
            LocalBroker broker = new LocalBroker(Path.of(args[1]), Integer.parseInt(args[2]), Integer.parseInt(args[3]),
                    args[4].equals("secured"), listen, advertised);
            broker = apart ? broker.withControllerApart() : broker;
            broker.prepare();
            System.out.println(broker.layout());
        } catch (IllegalStateException | IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.exit(1);
        }
    }
}
