package dev.allot.cli;

/**
 * A command that cannot do what was asked, with the exit code the README documents:
 * {@link #REFUSED} (the service said no), {@link #USAGE} (bad arguments or input) or
 * {@link #UNREACHABLE} (no answer from the service). The message names the field and the fix.
 */
public final class CliFailure extends RuntimeException {

    public static final int OK = 0;
    public static final int REFUSED = 1;
    public static final int USAGE = 2;
    public static final int UNREACHABLE = 3;

    private final int exitCode;

    public CliFailure(int exitCode, String message) {
        super(message);
        this.exitCode = exitCode;
    }

    public static CliFailure usage(String message) {
        return new CliFailure(USAGE, message);
    }

    public static CliFailure refused(String message) {
        return new CliFailure(REFUSED, message);
    }

    public int exitCode() {
        return exitCode;
    }
}
