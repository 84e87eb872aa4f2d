package dev.allot.scheduler;

import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.util.LinkedHashMap;
import java.util.Map;

/** A small read-only view of the loop for operators: phase, counts, replay cost. */
@Path("/scheduler/status")
public class StatusResource {

    @Inject
    SchedulerService service;

    @GET
    @Produces(MediaType.APPLICATION_JSON)
    public Map<String, Object> status() {
        SchedulerLoop loop = service.loop();
        Map<String, Object> body = new LinkedHashMap<>();
        if (loop == null) {
            body.put("phase", "NOT_STARTED");
            return body;
        }
        SchedulerLoop.Status s = loop.status();
        body.put("cluster", s.cluster());
        body.put("phase", s.phase().name());
        body.put("waiting", s.waiting());
        body.put("running", s.running());
        body.put("nodes", s.nodes());
        body.put("lastPassAt", s.lastPassAtMillis());
        body.put("rebuiltFromRecords", s.rebuiltFromRecords());
        body.put("rebuildMillis", s.rebuildMillis());
        body.put("deadLetters", loop.deadLetterCount());
        return body;
    }
}
