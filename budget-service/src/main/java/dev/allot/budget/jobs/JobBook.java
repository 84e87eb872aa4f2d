package dev.allot.budget.jobs;

import dev.allot.schemas.JobCancelRequested;
import dev.allot.schemas.JobEvent;
import dev.allot.schemas.JobRequest;
import dev.allot.schemas.JobSubmitted;
import java.util.ArrayDeque;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.apache.avro.specific.SpecificRecord;

/**
 * Every job the log has mentioned, by id: a projection of job-requests and job-events.
 *
 * <p>Jobs that have not finished, and the {@code keepWhole} most recently finished
 * ({@code allot.budget.jobs-kept-whole}), are kept as whole records; older finished jobs as a {@link FinishedJob} (the
 * list line and the facts as bytes): 100,000 finished jobs held 244-254 MB of a 384 MB heap kept whole, 137-138 MB so.
 * The recently finished stay whole because a replay reads job-requests and job-events side by side, so a job's
 * submission may come after its completion, and because they are the ones people look at. A fact for an older
 * finished job is applied to its facts read back (counted by {@link #reopened()}).
 */
public final class JobBook {

    /** The sealed pair the book holds: a whole record, or a finished job's list line and facts. */
    public sealed interface Entry permits JobRecord, FinishedJob {
        JobRecord.Summary summary();

        /** The record itself, or for a finished job a fresh one built from its facts (changes to it are not kept). */
        JobRecord whole(WireReader wireReader);
    }

    /** Reads a record in the registry's wire format (kafka-edge's {@code EventReader}). */
    @FunctionalInterface
    public interface WireReader {
        SpecificRecord read(byte[] wire, Class<? extends SpecificRecord> type);
    }

    public static final int DEFAULT_KEEP_WHOLE = 4096;

    private final Map<String, Entry> jobs = new ConcurrentHashMap<>();
    /** Budget, cluster and submitter names, once each, for the finished jobs' lines. */
    private final Map<String, String> names = new ConcurrentHashMap<>();
    /** Ids of whole finished records, oldest finish first; guarded by itself. */
    private final ArrayDeque<String> recentlyFinished = new ArrayDeque<>();
    private final LongAdder reopened = new LongAdder();
    private final AtomicLong asFacts = new AtomicLong();
    private final int keepWhole;
    private volatile WireReader wireReader = (wire, type) -> {
        throw new IllegalStateException("no reader of the log's records yet");
    };

    public JobBook(int keepWhole) {
        if (keepWhole < 0) {
            throw new IllegalArgumentException("allot.budget.jobs-kept-whole must be >= 0, got " + keepWhole);
        }
        this.keepWhole = keepWhole;
    }

    /** How facts read from the log are read back: the projector's reader, set before it applies the first record. */
    public void readWireWith(WireReader reader) {
        this.wireReader = reader;
    }

    /** A submission or a cancel request of this instance, once Kafka acknowledged it. */
    public void request(JobRequest request) {
        request(request, null);
    }

    /** A submission or a cancel request; {@code wire} the bytes it was read from the log as, else null. */
    public void request(JobRequest request, byte[] wire) {
        String jobId = switch (request.getPayload()) {
            case JobSubmitted job -> job.getJobId();
            case JobCancelRequested cancel -> cancel.getJobId();
            default -> throw new IllegalArgumentException("not a job request: " + request.getPayload().getClass());
        };
        apply(jobId, record -> record.request(request, wire));
    }

    /** A fact of job-events; {@code wire} the bytes it was read from the log as, else null. */
    public void event(JobEvent event, byte[] wire) {
        apply(event.getJobId(), record -> record.event(event, wire));
    }

    public Optional<JobRecord> find(String id) {
        return Optional.ofNullable(jobs.get(id)).map(entry -> entry.whole(wireReader));
    }

    /** Every job's list line. */
    public Stream<JobRecord.Summary> summaries() {
        return jobs.values().stream().map(Entry::summary);
    }

    /** The jobs kept whole: every job not finished among them. */
    public Stream<JobRecord> wholeRecords() {
        return jobs.values().stream().filter(JobRecord.class::isInstance).map(JobRecord.class::cast);
    }

    public boolean exists(String id) {
        return jobs.containsKey(id);
    }

    public int size() {
        return jobs.size();
    }

    /** Finished jobs kept as facts only. */
    public long finishedAsFacts() {
        return asFacts.get();
    }

    /** Facts that came for a job already kept as facts only, each applied to its facts read back. */
    public long reopened() {
        return reopened.sum();
    }

    private void apply(String id, Consumer<JobRecord> fact) {
        boolean[] justFinished = {false};
        jobs.compute(id, (key, entry) -> {
            if (entry instanceof FinishedJob finished) {
                reopened.increment();
                JobRecord record = finished.whole(wireReader);
                fact.accept(record);
                if (record.isFinished()) {
                    return FinishedJob.of(record, this::name);
                }
                asFacts.decrementAndGet();
                return record;
            }
            JobRecord record = entry == null ? new JobRecord(key) : (JobRecord) entry;
            boolean wasFinished = record.isFinished();
            fact.accept(record);
            justFinished[0] = !wasFinished && record.isFinished();
            return record;
        });
        if (justFinished[0]) {
            String oldest;
            synchronized (recentlyFinished) {
                recentlyFinished.addLast(id);
                oldest = recentlyFinished.size() > keepWhole ? recentlyFinished.pollFirst() : null;
            }
            if (oldest != null) {
                jobs.computeIfPresent(oldest, (key, entry) -> {
                    if (entry instanceof JobRecord record && record.isFinished()) {
                        asFacts.incrementAndGet();
                        return FinishedJob.of(record, this::name);
                    }
                    return entry;
                });
            }
        }
    }

    private String name(String name) {
        return name == null ? null : names.computeIfAbsent(name, n -> n);
    }
}
