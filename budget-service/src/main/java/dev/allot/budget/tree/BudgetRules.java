package dev.allot.budget.tree;

import java.util.Optional;

/**
 * What a budget owner may do to the tree, checked against the current projection before anything
 * is written. Moves are not a thing: the path is the account's identity, so the parent is the path
 * without its last segment; a cycle or a self-parenting account cannot be expressed, and a body
 * naming a different parent is refused.
 */
public final class BudgetRules {

    /**
     * Shares are weights among siblings; bounded so that one account cannot push every sibling's entitlement to
     * ~0 (a share of 1e308 next to 1) nor be a denormal that rounds away.
     */
    public static final double MIN_SHARE = 1e-6;
    public static final double MAX_SHARE = 1e6;

    private BudgetRules() {
    }

    /** Checks a define (create or share change); {@code declaredParent} is the optional body field. */
    public static Optional<Violation> checkDefine(BudgetTree tree, String path, Double share, boolean shareGiven,
                                                  String declaredParent, boolean parentGiven) {
        Optional<String> syntax = BudgetPath.problem(path);
        if (syntax.isPresent()) {
            return Optional.of(Violation.badRequest("path", "path " + syntax.get()));
        }
        if (!shareGiven || share == null) {
            return Optional.of(Violation.badRequest("share", "share is required (a number from " + MIN_SHARE + " to " + MAX_SHARE + ")"));
        }
        if (share.isNaN() || share.isInfinite() || share < MIN_SHARE || share > MAX_SHARE) {
            return Optional.of(Violation.badRequest("share", "share must be a number from " + MIN_SHARE + " to "
                    + MAX_SHARE + ", got " + share));
        }
        String parent = BudgetPath.parentOf(path);
        if (parentGiven) {
            if (declaredParent != null && declaredParent.equals(path)) {
                return Optional.of(Violation.unprocessable("parent", "an account cannot be its own parent: " + path));
            }
            if (declaredParent != null && declaredParent.startsWith(path + "/")) {
                return Optional.of(Violation.unprocessable("parent",
                        "parent " + declaredParent + " is a descendant of " + path + ": that would make a cycle"));
            }
            if (!java.util.Objects.equals(declaredParent, parent)) {
                return Optional.of(Violation.unprocessable("parent", "parent must be "
                        + (parent == null ? "null (a root)" : "'" + parent + "'")
                        + " for path " + path + ": the path names the parent; accounts are not moved"));
            }
        }
        if (parent != null && !tree.exists(parent)) {
            return Optional.of(Violation.unprocessable("parent", "unknown parent account '" + parent
                    + "': define it first"));
        }
        return Optional.empty();
    }

    public static Optional<Violation> checkRemove(BudgetTree tree, String path) {
        Optional<String> syntax = BudgetPath.problem(path);
        if (syntax.isPresent()) {
            return Optional.of(Violation.badRequest("path", "path " + syntax.get()));
        }
        if (!tree.exists(path)) {
            return Optional.of(Violation.notFound("path", "unknown budget account '" + path + "'"));
        }
        if (!tree.children(path).isEmpty()) {
            return Optional.of(Violation.conflict("path", "account '" + path + "' still has children "
                    + tree.children(path) + ": remove them first"));
        }
        return Optional.empty();
    }
}
