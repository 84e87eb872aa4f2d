package dev.allot.testsupport;

import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.platform.commons.support.AnnotationSupport;

/** JUnit extension behind {@link AllotInfra}: starts the shared infrastructure before the class. */
public final class AllotInfraExtension implements BeforeAllCallback, ParameterResolver {

    @Override
    public void beforeAll(ExtensionContext context) {
        infra(context);
    }

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext extension) {
        return parameter.getParameter().getType() == AllotInfrastructure.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext extension) {
        return infra(extension);
    }

    private static AllotInfrastructure infra(ExtensionContext context) {
        boolean secured = context.getTestClass()
                .flatMap(type -> AnnotationSupport.findAnnotation(type, AllotInfra.class))
                .map(AllotInfra::secured).orElse(false);
        return secured ? AllotInfrastructure.secured() : AllotInfrastructure.shared();
    }
}
