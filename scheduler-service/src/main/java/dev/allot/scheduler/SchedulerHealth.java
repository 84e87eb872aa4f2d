package dev.allot.scheduler;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Liveness;
import org.eclipse.microprofile.health.Readiness;

/**
 * Ready when active and running (the log read back, facts caught up) or standing by (ready to take over: a
 * Deployment's standby replica is a ready pod); live unless stopped. {@code role} says which.
 */
public final class SchedulerHealth {

    private SchedulerHealth() {
    }

    static HealthCheckResponse of(String name, SchedulerLoop loop, boolean readiness) {
        if (loop == null) {
            return HealthCheckResponse.named(name).down().withData("phase", "NOT_STARTED").build();
        }
        SchedulerLoop.Status s = loop.status();
        boolean up = readiness ? s.phase() == SchedulerLoop.Phase.RUNNING || s.phase() == SchedulerLoop.Phase.STANDBY
                : s.phase() != SchedulerLoop.Phase.STOPPED;
        return HealthCheckResponse.named(name).status(up)
                .withData("cluster", s.cluster())
                .withData("phase", s.phase().name())
                .withData("role", s.phase() == SchedulerLoop.Phase.STANDBY || s.phase() == SchedulerLoop.Phase.FENCED
                        ? "standby" : "active")
                .withData("waiting", s.waiting())
                .withData("running", s.running())
                .withData("nodes", s.nodes())
                .build();
    }

    @Readiness
    @ApplicationScoped
    public static class Ready implements HealthCheck {
        @Inject
        SchedulerService service;

        @Override
        public HealthCheckResponse call() {
            return of("scheduler-loop", service.loop(), true);
        }
    }

    @Liveness
    @ApplicationScoped
    public static class Alive implements HealthCheck {
        @Inject
        SchedulerService service;

        @Override
        public HealthCheckResponse call() {
            return of("scheduler-loop", service.loop(), false);
        }
    }
}
