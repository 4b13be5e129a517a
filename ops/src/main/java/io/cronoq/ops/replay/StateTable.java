package io.cronoq.ops.replay;

import io.cronoq.events.TaskState;
import io.cronoq.schemas.rules.Durations;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;

/** Prints a {@link StateAt} for people: a table of pools, one of groups, and each pool's queue (the first few). */
final class StateTable {

    /** Waiting tasks shown per pool; the rest are counted. */
    static final int QUEUE_ROWS = 20;

    private StateTable() {}

    static void write(StateAt state, PrintWriter out) {
        out.println("State at " + state.at());
        if (state.pools().isEmpty()) {
            out.println("(the journal has nothing up to this time)");
            out.flush();
            return;
        }
        out.println();
        Table pools = new Table("POOL", "WORKERS", "CAPACITY", "BUSY", "WAITING", "ASSIGNED", "RUNNING", "SUCCEEDED",
                "FAILED", "CANCELLED");
        for (StateAt.Pool p : state.pools()) {
            pools.row(p.pool(), p.workers(), p.capacity(), p.busy(), p.waiting(), count(p, TaskState.ASSIGNED),
                    count(p, TaskState.RUNNING), count(p, TaskState.SUCCEEDED), count(p, TaskState.FAILED),
                    count(p, TaskState.CANCELLED));
        }
        pools.print(out);
        out.println();
        Table groups = new Table("POOL", "GROUP", "WORKERS", "CAPACITY", "BUSY", "FREE", "WAITING", "DRAINING BUSY");
        for (StateAt.GroupAt g : state.groups()) {
            groups.row(g.pool(), Labels.display(g.labels()), g.workers(), g.capacity(), g.busy(),
                    Math.max(0, g.capacity() - g.busy()), g.waiting(), g.drainingBusy());
        }
        groups.print(out);
        for (var queue : state.queues().entrySet()) {
            out.println();
            out.println("Queue of " + queue.getKey() + " (" + queue.getValue().size() + " waiting, first served first):");
            Table rows = new Table("TASK", "REQUIRES", "ATTEMPTS", "WAITING SINCE", "WAITED", "REASON");
            List<StateAt.Queued> queued = queue.getValue();
            for (StateAt.Queued q : queued.subList(0, Math.min(QUEUE_ROWS, queued.size()))) {
                rows.row(q.taskId(), Labels.display(q.labels()), q.attempts(), q.since(), Durations.words(q.waitedMs()),
                        q.reason() == null ? "" : q.reason());
            }
            rows.print(out);
            if (queued.size() > QUEUE_ROWS) {
                out.println("... and " + (queued.size() - QUEUE_ROWS) + " more (use --json for all)");
            }
        }
        out.flush();
    }

    private static int count(StateAt.Pool p, TaskState state) {
        return p.tasks().getOrDefault(state, 0);
    }

    /** Left-aligned text columns, right-aligned numbers, two spaces apart. */
    static final class Table {
        private final String[] header;
        private final List<Object[]> rows = new ArrayList<>();

        Table(String... header) {
            this.header = header;
        }

        void row(Object... cells) {
            rows.add(cells);
        }

        void print(PrintWriter out) {
            int[] widths = new int[header.length];
            for (int i = 0; i < header.length; i++) {
                widths[i] = header[i].length();
            }
            for (Object[] row : rows) {
                for (int i = 0; i < row.length; i++) {
                    widths[i] = Math.max(widths[i], String.valueOf(row[i]).length());
                }
            }
            line(out, header, widths);
            for (Object[] row : rows) {
                line(out, row, widths);
            }
        }

        private static void line(PrintWriter out, Object[] cells, int[] widths) {
            StringBuilder line = new StringBuilder();
            for (int i = 0; i < cells.length; i++) {
                String s = String.valueOf(cells[i]);
                String pad = " ".repeat(widths[i] - s.length());
                line.append(cells[i] instanceof Number ? pad + s : s + pad);
                if (i < cells.length - 1) {
                    line.append("  ");
                }
            }
            out.println(line.toString().stripTrailing());
        }
    }
}
