package dev.allot.testsupport;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.ServerSocket;
import org.junit.jupiter.api.Test;

class LoopbackPortsTest {

    @Test
    void givenTheKernelsEphemeralRange_whenAPortIsChosen_thenItLiesBelowTheRangeAndCanBeBound() throws Exception {
        int ephemeralLow = LoopbackPorts.ephemeralLow();
        assertThat(ephemeralLow).as("the kernel says where its ephemeral range starts (Linux)").isGreaterThan(21_000);

        for (int i = 0; i < 20; i++) {
            int port = LoopbackPorts.free();

            assertThat(port).isBetween(20_000, ephemeralLow - 1);
            try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
                assertThat(socket.getLocalPort()).isEqualTo(port);
            }
        }
    }

    @Test
    void givenAPortSomebodyListensOn_thenItIsNotBindable() throws Exception {
        try (ServerSocket taken = new ServerSocket(LoopbackPorts.free(), 1, InetAddress.getLoopbackAddress())) {
            assertThat(LoopbackPorts.bindable(taken.getLocalPort())).isFalse();
        }
        assertThat(LoopbackPorts.bindable(LoopbackPorts.free())).isTrue();
    }
}
