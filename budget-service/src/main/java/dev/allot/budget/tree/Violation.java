package dev.allot.budget.tree;

/**
 * A request the rules refuse: the HTTP status to answer, the offending field and why.
 * 400 for malformed input (syntax, shape), 404 for an unknown resource, 409 for a conflict with the
 * current state, 422 for a well-formed request that names something the tree does not have.
 */
public record Violation(int status, String field, String message) {

    public static Violation badRequest(String field, String message) {
        return new Violation(400, field, message);
    }

    public static Violation notFound(String field, String message) {
        return new Violation(404, field, message);
    }

    public static Violation conflict(String field, String message) {
        return new Violation(409, field, message);
    }

    public static Violation unprocessable(String field, String message) {
        return new Violation(422, field, message);
    }
}
