package dev.allot.nodeagent.auth;

import jakarta.enterprise.context.RequestScoped;

/** Who calls the agent's API in this request, as {@link AgentAuthentication} verified it. */
@RequestScoped
public class AgentCaller {

    /** The budget-service (the service secret), or a person with an operator's or admin's token. */
    public enum Kind { SERVICE, OPERATOR }

    private Kind kind;
    private String name;

    void set(Kind kind, String name) {
        this.kind = kind;
        this.name = name;
    }

    public Kind kind() {
        return kind;
    }

    /** The token's name for a person; {@code null} for the service. */
    public String name() {
        return name;
    }
}
