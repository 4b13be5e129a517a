package io.cronoq.scheduler.topology;

/** How many entries one journal record holds: the setting {@code cronoq.journal.records}. */
public enum JournalRecords {
    /** Every entry a pool's inputs and ticks caused between two commits: the fewest records; the default. */
    PER_COMMIT,
    /** Every entry one input or one tick caused: for journal readers that take a record's times for all its entries. */
    PER_INPUT,
    /** One entry per record: for journal readers that read only the first entry of a record. */
    PER_ENTRY
}
