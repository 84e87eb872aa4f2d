package dev.allot.scheduler;

import dev.allot.core.explain.AccountUsage;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Every account's ratio as the scheduler sorts on it (charged, entitled, ratio over the window), at
 * most a second old: the figures to compare with the accounting-service's {@code budget-usage}.
 */
@Path("/scheduler/ratios")
public class RatiosResource {

    @Inject
    SchedulerService service;

    @GET
    @Produces(MediaType.APPLICATION_JSON)
    public Map<String, Object> ratios() {
        SchedulerLoop loop = service.loop();
        Map<String, Object> body = new LinkedHashMap<>();
        if (loop == null) {
            body.put("at", null);
            body.put("accounts", List.of());
            return body;
        }
        SchedulerLoop.Ratios r = loop.ratios();
        body.put("cluster", loop.status().cluster());
        body.put("at", r.atMillis());
        List<Map<String, Object>> accounts = new ArrayList<>();
        for (AccountUsage u : r.byAccount().values()) {
            Map<String, Object> a = new LinkedHashMap<>();
            a.put("account", u.account());
            a.put("chargedGpuSeconds", u.chargedGpuSeconds());
            a.put("unallocatedGpuSeconds", u.unallocatedGpuSeconds());
            a.put("entitledGpuSeconds", u.entitledGpuSeconds());
            a.put("ratio", Double.isFinite(u.ratio()) ? u.ratio() : null);
            accounts.add(a);
        }
        body.put("accounts", accounts);
        return body;
    }
}
