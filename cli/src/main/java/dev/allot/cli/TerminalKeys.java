package dev.allot.cli;

import java.io.IOException;

/** Single key presses for 'top': the tty in non-canonical mode, and a wait that ends early on 'q'. */
public final class TerminalKeys {

    private TerminalKeys() {
    }

    /** Puts the tty in non-canonical, no-echo mode; false when there is no terminal. */
    public static boolean raw() {
        boolean ok = Terminal.stty("-icanon -echo min 0 time 0");
        if (ok) {
            Runtime.getRuntime().addShutdownHook(new Thread(TerminalKeys::restore, "allot-tty-restore"));
        }
        return ok;
    }

    public static void restore() {
        Terminal.stty("sane");
    }

    /** Waits up to {@code millis}; true as soon as 'q' is pressed (only with a raw terminal). */
    public static boolean quitWithin(long millis, boolean raw) {
        long deadline = System.nanoTime() + millis * 1_000_000;
        while (System.nanoTime() < deadline) {
            try {
                if (raw && System.in.available() > 0) {
                    int key = System.in.read();
                    if (key == 'q' || key == 'Q') {
                        return true;
                    }
                }
                Thread.sleep(50); // the frame's pause, checking for a key every 50 ms
            } catch (IOException e) {
                return false;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return true;
            }
        }
        return false;
    }
}
