package dev.allot.budget.api;

import dev.allot.budget.tree.Violation;

/** A refused request; mapped to a JSON error naming the offending field. */
public class ApiException extends RuntimeException {

    private final Violation violation;

    public ApiException(Violation violation) {
        super(violation.message());
        this.violation = violation;
    }

    /** For {@code Optional<Violation>.ifPresent(ApiException::raise)}. */
    public static void raise(Violation violation) {
        throw new ApiException(violation);
    }

    public Violation violation() {
        return violation;
    }
}
