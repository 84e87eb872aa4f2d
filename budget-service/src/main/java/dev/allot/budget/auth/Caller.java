package dev.allot.budget.auth;

import java.util.Set;

/**
 * The verified principal of a request: the bearer token's name (smallrye-jwt's rule: claim {@code upn}, else
 * {@code preferred_username}, else {@code sub}) and groups (claim {@code groups}). Admin and operator are
 * groups of the identity provider, named by configuration.
 */
public record Caller(String name, Set<String> groups, boolean admin, boolean operator) {

    public Caller {
        groups = Set.copyOf(groups);
    }

    /** Whether an owners/members entry names this caller: its user name, or {@code group:NAME} of one of its groups. */
    public boolean isNamedBy(String entry) {
        if (entry.startsWith(Principals.GROUP_PREFIX)) {
            return groups.contains(entry.substring(Principals.GROUP_PREFIX.length()));
        }
        return entry.equals(name);
    }
}
