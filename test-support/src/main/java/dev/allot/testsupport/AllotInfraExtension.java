package dev.allot.testsupport;

import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/** JUnit extension behind {@link AllotInfra}: starts the shared infrastructure before the class. */
public final class AllotInfraExtension implements BeforeAllCallback, ParameterResolver {

    @Override
    public void beforeAll(ExtensionContext context) {
        AllotInfrastructure.shared();
    }

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext extension) {
        return parameter.getParameter().getType() == AllotInfrastructure.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext extension) {
        return AllotInfrastructure.shared();
    }
}
