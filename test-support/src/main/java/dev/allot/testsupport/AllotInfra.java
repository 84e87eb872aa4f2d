package dev.allot.testsupport;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Gives a test class a real Kafka broker and a real schema registry on loopback: declare a parameter
 * (constructor, lifecycle or test method) of type {@link AllotInfrastructure}. Started once per JVM.
 * {@code @AllotInfra(secured = true)} gives the secured broker instead ({@link AllotInfrastructure#secured()}).
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@ExtendWith(AllotInfraExtension.class)
public @interface AllotInfra {

    /** SASL/SCRAM and the ACL table, as {@code bin/allot infra up} runs the broker; plaintext by default. */
    boolean secured() default false;
}
