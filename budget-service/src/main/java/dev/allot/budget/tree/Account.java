package dev.allot.budget.tree;

import java.time.Instant;

/** One account of the budget tree as the log defined it. */
public record Account(String path, String parent, double share, Instant effectiveAt, String definedBy) {
}
