package io.cronoq.scheduler.topology;

/** How many events one record of the assignments topic holds: the setting {@code cronoq.assignments.records}. */
public enum AssignmentRecords {
    /** Every event told a worker between two commits: the fewest records; the default. */
    PER_COMMIT,
    /** One event per record: for worker agents of releases that read only the first event of a record. */
    PER_EVENT
}
