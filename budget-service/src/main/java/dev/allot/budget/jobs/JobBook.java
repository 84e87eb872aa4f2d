package dev.allot.budget.jobs;

import dev.allot.schemas.JobCancelRequested;
import dev.allot.schemas.JobEvent;
import dev.allot.schemas.JobSubmitted;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/** Every job the log has mentioned, by id: a projection of job-requests and job-events. */
public final class JobBook {

    private final Map<String, JobRecord> jobs = new ConcurrentHashMap<>();

    public void submitted(String eventId, Instant at, JobSubmitted job) {
        record(job.getJobId()).submitted(eventId, at, job);
    }

    public void cancelRequested(String eventId, Instant at, JobCancelRequested cancel) {
        record(cancel.getJobId()).cancelRequested(eventId, at, cancel);
    }

    public void event(JobEvent event) {
        record(event.getJobId()).event(event);
    }

    public Optional<JobRecord> find(String id) {
        return Optional.ofNullable(jobs.get(id));
    }

    public java.util.Collection<JobRecord> all() {
        return jobs.values();
    }

    public boolean exists(String id) {
        return jobs.containsKey(id);
    }

    public int size() {
        return jobs.size();
    }

    private JobRecord record(String id) {
        return jobs.computeIfAbsent(id, JobRecord::new);
    }
}
