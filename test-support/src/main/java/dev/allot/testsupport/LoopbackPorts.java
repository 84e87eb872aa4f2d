package dev.allot.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Free TCP ports on 127.0.0.1 for test servers (brokers, registries, services).
 *
 * <p>A port is free when chosen, not reserved. A server that is stopped and started again on its port (a
 * broker or a service killed in a fault test) needs the port to stay free meanwhile. A port from the
 * kernel's ephemeral range ({@code ServerSocket(0)}) does not: any outgoing connection of the machine may be
 * given it while the server is down. So ports are drawn at random below that range, where the kernel never
 * hands out ports by itself, and checked by binding them.
 */
public final class LoopbackPorts {
    private static final Path EPHEMERAL_RANGE = Path.of("/proc/sys/net/ipv4/ip_local_port_range");
    private static final int LOWEST = 20_000;

    private LoopbackPorts() {
    }

    /** A port nobody listens on now, outside the ephemeral range when the machine says where it is. */
    public static int free() {
        int below = ephemeralLow();
        if (below - LOWEST >= 1_000) {
            for (int attempt = 0; attempt < 50; attempt++) {
                int port = ThreadLocalRandom.current().nextInt(LOWEST, below);
                if (bindable(port)) {
                    return port;
                }
            }
        }
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static boolean bindable(int port) {
        try (ServerSocket socket = new ServerSocket()) {
            socket.setReuseAddress(false);
            socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** The first port of the kernel's ephemeral range (Linux), or 0 when unknown. */
    static int ephemeralLow() {
        try {
            // a reader, not Files.readString: on a /proc file (size 0) that returned only the first byte here
            String line;
            try (java.io.BufferedReader reader = Files.newBufferedReader(EPHEMERAL_RANGE)) {
                line = reader.readLine();
            }
            String[] range = line.trim().split("\\s+");
            return Integer.parseInt(range[0]);
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }
}
