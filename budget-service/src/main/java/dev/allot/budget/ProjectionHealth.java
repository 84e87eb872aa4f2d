package dev.allot.budget;

import dev.allot.budget.kafka.LogProjector;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Liveness;
import org.eclipse.microprofile.health.Readiness;

/** Ready once the log has been replayed (validation needs the whole tree); alive while the consumer runs. */
public class ProjectionHealth {

    @ApplicationScoped
    @Readiness
    public static class Replayed implements HealthCheck {
        @Inject
        LogProjector projector;
        @Inject
        LogView view;

        @Override
        public HealthCheckResponse call() {
            return HealthCheckResponse.named("budget-projection")
                    .status(projector.caughtUp())
                    .withData("accounts", view.tree().size())
                    .withData("jobs", view.jobs().size())
                    .build();
        }
    }

    @ApplicationScoped
    @Liveness
    public static class ConsumerAlive implements HealthCheck {
        @Inject
        LogProjector projector;

        @Override
        public HealthCheckResponse call() {
            return HealthCheckResponse.named("budget-log-consumer").status(projector.alive()).build();
        }
    }
}
