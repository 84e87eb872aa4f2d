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
 * The full log (INFO) of a broker that runs in this JVM and of this JVM's Kafka clients, in
 * {@code target/e2e-logs/<name>} and not on the console (which gets Kafka's warnings only: logging.properties),
 * while it is open: a test that fails after the broker's restart needs what its coordinators did.
 */
final class BrokerLog implements AutoCloseable {

    private static final String[] KAFKA_LOGGERS = {"kafka", "org.apache.kafka", "state.change.logger"};

    private final Handler handler;
    private final Logger[] loggers = new Logger[KAFKA_LOGGERS.length];
    private final Level[] levels = new Level[KAFKA_LOGGERS.length];

    private BrokerLog(Handler handler) {
        this.handler = handler;
        for (int i = 0; i < KAFKA_LOGGERS.length; i++) {
            loggers[i] = Logger.getLogger(KAFKA_LOGGERS[i]);
            levels[i] = loggers[i].getLevel();
            loggers[i].setLevel(Level.INFO);
            loggers[i].setUseParentHandlers(false);
            loggers[i].addHandler(handler);
        }
    }

    static BrokerLog keep(String name) {
        try {
            Path dir = Files.createDirectories(Path.of("target/e2e-logs"));
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
        for (int i = 0; i < loggers.length; i++) {
            loggers[i].removeHandler(handler);
            loggers[i].setUseParentHandlers(true);
            loggers[i].setLevel(levels[i]);
        }
        handler.close();
    }
}
