package io.cronoq.ops.replay;

import io.cronoq.scheduler.replay.JournalFold;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.Callable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code cronoq replay}: reads the journal with a plain consumer (no scheduler needed) and writes
 * the per-task timeline as CSV or JSON Lines, or with {@code --at} prints the state of pools,
 * groups and queues at that instant.
 */
@Command(name = "replay", mixinStandardHelpOptions = true, sortOptions = false,
        description = {
            "Read the journal and write a per-task timeline: submitted, each attempt's assigned, started and "
                    + "finished times, worker, group, wait time, run time and outcome.",
            "With --at, print the state of pools, groups and queues at that instant instead.",
            "Reads what the journal holds when the command starts; needs no scheduler running."},
        footer = {"", "Examples:",
            "  cronoq replay --bootstrap kafka:9092 > timeline.csv",
            "  cronoq replay --from 2026-03-01T00:00:00Z --format jsonl --output march.jsonl",
            "  cronoq replay --at 2026-03-01T09:30:00Z",
            "  cronoq replay --at 2026-03-01T09:30:00Z --json",
            "  cronoq replay --workflow etl-1 --format jsonl"})
public final class ReplayCommand implements Callable<Integer> {

    private static final Logger log = LoggerFactory.getLogger(ReplayCommand.class);

    @Mixin
    JournalOptions journal;

    @Option(names = "--from", paramLabel = "TIME", converter = Times.InstantConverter.class,
            description = "Start at the first entry at or after this time (default: the beginning). "
                    + "Tasks submitted earlier are left out.")
    Instant from;

    @Option(names = "--format", paramLabel = "csv|jsonl", converter = TimelineFormat.Converter.class,
            description = "Timeline format: csv (one row per attempt, default) or jsonl (one JSON object per task).")
    TimelineFormat format;

    @Option(names = "--workflow", paramLabel = "ID",
            description = "Only the tasks of this workflow (POST /v1/workflows: their ids are ID:<name>).")
    String workflow;

    @Mixin
    Output output;

    @Option(names = "--at", paramLabel = "TIME", converter = Times.InstantConverter.class,
            description = "Print the state of pools, groups and queues at this instant instead of the timeline.")
    Instant at;

    @Option(names = "--json", description = "With --at: print the state as JSON.")
    boolean json;

    @Override
    public Integer call() {
        checkFlags();
        return at != null ? state() : timeline();
    }

    private void checkFlags() {
        if (at != null && from != null) {
            throw new IllegalArgumentException("--from cannot be combined with --at: the state at an instant "
                    + "needs the journal from its beginning; drop --from");
        }
        if (at != null && format != null) {
            throw new IllegalArgumentException("--format is for the timeline; with --at use --json (or nothing for a table)");
        }
        if (at != null && workflow != null) {
            throw new IllegalArgumentException("--workflow is for the timeline; with --at the state shows every pool");
        }
        if (at == null && json) {
            throw new IllegalArgumentException("--json goes with --at; for the timeline as JSON use --format jsonl");
        }
        output.check();
    }

    private int timeline() {
        JournalFold fold = JournalFold.keepingHistory(); // a task forgotten at the end of its retention stays in the timeline
        JournalReader.Stats stats = journal.read(from, fold::apply);
        List<Timeline.Task> tasks = workflow == null ? Timeline.of(fold)
                : Timeline.of(fold).stream().filter(t -> t.taskId().startsWith(workflow + ":")).toList();
        TimelineFormat chosen = format != null ? format : TimelineFormat.CSV;
        output.write(out -> chosen.write(tasks, out));
        log.info("Replayed {} journal entries into the timeline of {} task(s)", stats.entries(), tasks.size());
        return 0;
    }

    private int state() {
        JournalFold fold = new JournalFold();
        JournalClock clock = new JournalClock();
        long until = at.toEpochMilli();
        journal.read(null, entry -> {
            if (clock.advance(entry) <= until) {
                fold.apply(entry);
            }
        });
        StateAt state = StateAt.of(fold, at);
        output.write(out -> {
            if (json) {
                StateJson.write(state, out);
            } else {
                StateTable.write(state, out);
            }
        });
        return 0;
    }
}
