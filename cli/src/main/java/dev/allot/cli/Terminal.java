package dev.allot.cli;

import java.util.Map;
import java.util.concurrent.TimeUnit;

/** The terminal's size: $COLUMNS / $LINES when set, else asked of the tty (stty), else 120 x 40. */
public final class Terminal {

    private Terminal() {
    }

    public static int columns(Map<String, String> env) {
        Integer fromEnv = number(env.get("COLUMNS"));
        if (fromEnv != null && fromEnv >= 40) {
            return fromEnv;
        }
        int[] size = stty();
        return size != null && size[1] >= 40 ? size[1] : 120;
    }

    public static int lines(Map<String, String> env) {
        Integer fromEnv = number(env.get("LINES"));
        if (fromEnv != null && fromEnv >= 10) {
            return fromEnv;
        }
        int[] size = stty();
        return size != null && size[0] >= 10 ? size[0] : 40;
    }

    private static Integer number(String text) {
        try {
            return text == null ? null : Integer.valueOf(text.strip());
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /** rows, columns of the controlling terminal, or null when there is none. */
    private static int[] stty() {
        if (System.console() == null) {
            return null;
        }
        try {
            Process p = new ProcessBuilder("sh", "-c", "stty size < /dev/tty").redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes()).strip();
            if (!p.waitFor(2, TimeUnit.SECONDS) || p.exitValue() != 0) {
                return null;
            }
            String[] parts = out.split("\\s+");
            return new int[] {Integer.parseInt(parts[0]), Integer.parseInt(parts[1])};
        } catch (Exception e) {
            return null;
        }
    }

    /** Runs stty on the tty (raw keys for 'top'); false when there is no terminal. */
    static boolean stty(String settings) {
        if (System.console() == null) {
            return false;
        }
        try {
            Process p = new ProcessBuilder("sh", "-c", "stty " + settings + " < /dev/tty").start();
            return p.waitFor(2, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (Exception e) {
            return false;
        }
    }
}
