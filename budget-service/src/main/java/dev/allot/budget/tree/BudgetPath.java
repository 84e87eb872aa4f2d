package dev.allot.budget.tree;

import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Syntax of a budget path: '/'-separated account names from the root, e.g. {@code lab/vision/team-a}.
 * The path is the account's identity (and its key on the compacted {@code budgets} topic), so the
 * parent of an account is always the path without its last segment.
 */
public final class BudgetPath {

    public static final int MAX_LENGTH = 255;
    public static final int MAX_DEPTH = 16;
    private static final Pattern SEGMENT = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,62}");

    private BudgetPath() {
    }

    /** Why the path is not a valid budget path, or empty when it is. */
    public static Optional<String> problem(String path) {
        if (path == null || path.isBlank()) {
            return Optional.of("must not be empty");
        }
        if (path.length() > MAX_LENGTH) {
            return Optional.of("must be at most " + MAX_LENGTH + " characters");
        }
        String[] segments = path.split("/", -1);
        if (segments.length > MAX_DEPTH) {
            return Optional.of("must be at most " + MAX_DEPTH + " levels deep");
        }
        for (String segment : segments) {
            if (!SEGMENT.matcher(segment).matches()) {
                return Optional.of("'" + path + "' is not a budget path: segments are 1-63 of [A-Za-z0-9_.-],"
                        + " starting with a letter or digit, separated by single '/'");
            }
        }
        return Optional.empty();
    }

    public static boolean isValid(String path) {
        return problem(path).isEmpty();
    }

    /** The parent path, or null for a root. */
    public static String parentOf(String path) {
        int slash = path.lastIndexOf('/');
        return slash < 0 ? null : path.substring(0, slash);
    }

    public static String nameOf(String path) {
        return path.substring(path.lastIndexOf('/') + 1);
    }
}
