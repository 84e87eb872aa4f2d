package dev.allot.e2e;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.logging.FileHandler;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.logging.SimpleFormatter;

/**
 * The log of a broker that runs in this JVM (and of this JVM's Kafka clients), in {@code target/e2e-logs/<name>}.
 * Without it an in-JVM broker logs nowhere: Quarkus's bootstrap runner on the test classpath gives the log manager
 * no handler outside a Quarkus application; and a test that fails after the broker's restart needs what its
 * coordinators did.
 */
final class BrokerLog implements AutoCloseable {

    private static final String[] KAFKA_LOGGERS = {"kafka", "org.apache.kafka", "state.change.logger"};

    private final Handler handler;
    private final Logger[] loggers = new Logger[KAFKA_LOGGERS.length];

    private BrokerLog(Handler handler) {
        this.handler = handler;
        for (int i = 0; i < KAFKA_LOGGERS.length; i++) {
            loggers[i] = Logger.getLogger(KAFKA_LOGGERS[i]);
            loggers[i].addHandler(handler);
        }
    }

    static BrokerLog keep(String name) {
        try {
            Path dir = Files.createDirectories(Path.of("target/e2e-logs"));
            System.setProperty("java.util.logging.SimpleFormatter.format", "%1$tF %1$tT,%1$tL %4$s [%3$s] %5$s%6$s%n");
            FileHandler handler = new FileHandler(dir.resolve(name).toString(), true);
            handler.setFormatter(new SimpleFormatter());
            handler.setLevel(Level.INFO);
            return new BrokerLog(handler);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        for (Logger logger : loggers) {
            logger.removeHandler(handler);
        }
        handler.close();
    }
}
