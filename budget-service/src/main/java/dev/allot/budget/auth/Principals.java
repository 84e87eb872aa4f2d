package dev.allot.budget.auth;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/** The syntax of an owners or members entry: a user name, or {@code group:NAME}. */
public final class Principals {

    public static final String GROUP_PREFIX = "group:";
    public static final int MAX_ENTRIES = 64;
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.@-]{0,127}");

    private Principals() {
    }

    /** Why the list is refused, or empty; duplicates are not a fault (see {@link #distinct}). */
    public static Optional<String> problem(List<String> entries) {
        if (entries.size() > MAX_ENTRIES) {
            return Optional.of("at most " + MAX_ENTRIES + " entries, got " + entries.size());
        }
        for (String entry : entries) {
            String name = entry.startsWith(GROUP_PREFIX) ? entry.substring(GROUP_PREFIX.length()) : entry;
            if (!NAME.matcher(name).matches()) {
                return Optional.of("'" + entry + "' is neither a user name nor group:NAME (names are 1-128 of"
                        + " [A-Za-z0-9_.@-], starting with a letter or digit)");
            }
        }
        return Optional.empty();
    }

    public static List<String> distinct(List<String> entries) {
        return new ArrayList<>(new LinkedHashSet<>(entries));
    }

    public static boolean isValidName(String name) {
        return name != null && NAME.matcher(name).matches();
    }
}
