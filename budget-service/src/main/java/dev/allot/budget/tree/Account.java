package dev.allot.budget.tree;

import java.time.Instant;
import java.util.List;

/**
 * One account of the budget tree as the log defined it. {@code owners} and {@code members} are this
 * account's own entries (user names or {@code group:NAME}); descendants inherit them (see the auth policy).
 */
public record Account(String path, String parent, double share, Instant effectiveAt, String definedBy,
                      List<String> owners, List<String> members, Instant createdAt) {

    /** {@code createdAt}: when the account was first defined (records written without it: effectiveAt). */
    public Account {
        owners = owners == null ? List.of() : List.copyOf(owners);
        members = members == null ? List.of() : List.copyOf(members);
        createdAt = createdAt == null ? effectiveAt : createdAt;
    }

    public Account(String path, String parent, double share, Instant effectiveAt, String definedBy,
                   List<String> owners, List<String> members) {
        this(path, parent, share, effectiveAt, definedBy, owners, members, null);
    }

    public Account(String path, String parent, double share, Instant effectiveAt, String definedBy) {
        this(path, parent, share, effectiveAt, definedBy, List.of(), List.of(), null);
    }
}
