package dev.allot.budget.jobs;

import java.util.function.UnaryOperator;

/**
 * A finished job as the book keeps it once it is no longer among the most recently finished: its list line and its
 * facts as bytes. Everything else (the view, the history, the placement for its output) is its facts applied again to
 * a fresh {@link JobRecord}, which reads the same as the record they came from.
 */
final class FinishedJob implements JobBook.Entry {

    private final JobRecord.Summary summary;
    private final byte[] facts;

    private FinishedJob(JobRecord.Summary summary, byte[] facts) {
        this.summary = summary;
        this.facts = facts;
    }

    /** {@code canonical} gives one instance per budget, cluster and submitter name: a few hundred, not one per job. */
    static FinishedJob of(JobRecord record, UnaryOperator<String> canonical) {
        JobRecord.Summary line = record.summary();
        JobRecord.Summary kept = new JobRecord.Summary(line.id(), line.state(), line.seenByScheduler(),
                canonical.apply(line.budget()), canonical.apply(line.cluster()), line.gpus(), line.submittedAt(),
                canonical.apply(line.submitter()));
        return new FinishedJob(kept, JobFacts.encode(record.facts()));
    }

    @Override
    public JobRecord.Summary summary() {
        return summary;
    }

    @Override
    public JobRecord whole(JobBook.WireReader wireReader) {
        JobRecord record = new JobRecord(summary.id());
        JobFacts.decode(facts, wireReader).forEach(record::apply);
        return record;
    }
}
