package dev.allot.budget.auth;

import dev.allot.budget.tree.Account;
import dev.allot.budget.tree.BudgetPath;
import dev.allot.budget.tree.BudgetTree;
import dev.allot.budget.tree.Violation;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Who may do what: the one place the budget-service decides it (the table in its README is this class).
 * Every method answers empty when the caller may, else a 403 naming the field at stake. Callers are
 * authenticated before any of this runs (anonymous requests never get here: 401).
 *
 * <ul>
 *   <li>admins: everything, the roots of the tree included;</li>
 *   <li>owners of an account (its own {@code owners}, or those of any ancestor): define, re-share and remove
 *       accounts strictly beneath it and set their owners and members; never the account's own share, nor a
 *       sibling's; cancel any job charged to it or beneath it;</li>
 *   <li>members of a leaf (its own {@code members} or any ancestor's): submit jobs charged to it; everyone
 *       cancels their own jobs;</li>
 *   <li>operators: drain and undrain nodes;</li>
 *   <li>any authenticated caller: read the tree, the queue, jobs.</li>
 * </ul>
 * Ownership does not imply membership: an owner who also runs jobs lists themselves as a member.
 */
public final class AccessPolicy {

    private AccessPolicy() {
    }

    /** PUT or DELETE of {@code path}: an admin, or an owner of a strict ancestor. */
    public static Optional<Violation> mayChange(Caller caller, BudgetTree tree, String path) {
        if (caller.admin()) {
            return Optional.empty();
        }
        String parent = BudgetPath.parentOf(path);
        if (parent == null) {
            return forbidden(caller, "path", "only admins define, change or remove roots of the tree ('" + path + "')");
        }
        if (ownsAny(caller, tree, ancestorsAndSelf(parent))) {
            return Optional.empty();
        }
        if (isOwner(caller, tree.account(path))) {
            return forbidden(caller, "path", "owners of '" + path + "' change the accounts beneath it, not its own"
                    + " share, owners or members: ask an owner of '" + parent + "' or above");
        }
        return forbidden(caller, "path", "changing '" + path + "' needs an owner of '" + parent + "' or one of its"
                + " ancestors");
    }

    /** POST /jobs charged to {@code leaf}: an admin, or a member of the leaf or of one of its ancestors. */
    public static Optional<Violation> maySubmit(Caller caller, BudgetTree tree, String leaf) {
        if (caller.admin()) {
            return Optional.empty();
        }
        for (String path : ancestorsAndSelf(leaf)) {
            Optional<Account> account = tree.account(path);
            if (account.isPresent() && account.get().members().stream().anyMatch(caller::isNamedBy)) {
                return Optional.empty();
            }
        }
        return forbidden(caller, "budget", "only members of '" + leaf + "' (or of an account above it) submit jobs"
                + " charged to it");
    }

    /** DELETE /jobs/{id}: an admin, the job's submitter, or an owner of its budget or of an account above it. */
    public static Optional<Violation> mayCancel(Caller caller, BudgetTree tree, String budget, String submitter) {
        if (caller.admin() || caller.name().equals(submitter)) {
            return Optional.empty();
        }
        if (budget != null && ownsAny(caller, tree, ancestorsAndSelf(budget))) {
            return Optional.empty();
        }
        return forbidden(caller, "id", "only the job's submitter, an owner of '" + budget + "' or of an account above"
                + " it, or an admin cancels it");
    }

    /**
     * GET /jobs/{id}/logs: what a job printed is its submitter's (it may hold data or paths they do not
     * publish), so: an admin or operator, the submitter, or an owner of its budget or of an account above it.
     */
    public static Optional<Violation> mayReadOutput(Caller caller, BudgetTree tree, String budget, String submitter) {
        if (caller.admin() || caller.operator() || caller.name().equals(submitter)) {
            return Optional.empty();
        }
        if (budget != null && ownsAny(caller, tree, ancestorsAndSelf(budget))) {
            return Optional.empty();
        }
        return forbidden(caller, "id", "only the job's submitter, an owner of '" + budget + "' or of an account above"
                + " it, an operator or an admin reads its output");
    }

    /** Draining or undraining a node. */
    public static Optional<Violation> mayDrain(Caller caller) {
        if (caller.admin() || caller.operator()) {
            return Optional.empty();
        }
        return forbidden(caller, "node", "only operators drain and undrain nodes");
    }

    /**
     * A header or body field that names who acts ({@code X-Allot-User}, {@code definedBy}, {@code submitter},
     * {@code X-Allot-Submitter}): absent or the caller's own name is fine (what is recorded is always the
     * token's name); another name is refused (400), never recorded.
     */
    public static Optional<Violation> claimedName(Caller caller, String field, String claimed) {
        if (claimed == null || claimed.isBlank() || claimed.equals(caller.name())) {
            return Optional.empty();
        }
        return Optional.of(Violation.badRequest(field, field + " '" + claimed + "' is not the authenticated principal '"
                + caller.name() + "': the token's name is recorded, a request cannot claim another"));
    }

    private static boolean ownsAny(Caller caller, BudgetTree tree, List<String> paths) {
        return paths.stream().anyMatch(path -> isOwner(caller, tree.account(path)));
    }

    private static boolean isOwner(Caller caller, Optional<Account> account) {
        return account.isPresent() && account.get().owners().stream().anyMatch(caller::isNamedBy);
    }

    /** {@code a/b/c} -> [a/b/c, a/b, a]. */
    static List<String> ancestorsAndSelf(String path) {
        List<String> paths = new ArrayList<>();
        for (String p = path; p != null; p = BudgetPath.parentOf(p)) {
            paths.add(p);
        }
        return paths;
    }

    private static Optional<Violation> forbidden(Caller caller, String field, String message) {
        return Optional.of(new Violation(403, field, caller.name() + ": " + message));
    }
}
