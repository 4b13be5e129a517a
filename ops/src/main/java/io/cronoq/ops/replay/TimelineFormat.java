package io.cronoq.ops.replay;

import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** The formats {@code cronoq replay} writes a timeline in. */
enum TimelineFormat {
    /** One row per attempt (a task that never ran: one row with empty attempt columns), with a header. */
    CSV {
        @Override
        void write(List<Timeline.Task> tasks, PrintWriter out) {
            TimelineCsv.write(tasks, out);
        }
    },
    /** One JSON object per task, its attempts nested. */
    JSONL {
        @Override
        void write(List<Timeline.Task> tasks, PrintWriter out) {
            TimelineJsonLines.write(tasks, out);
        }
    };

    abstract void write(List<Timeline.Task> tasks, PrintWriter out);

    /** Picocli converter: {@code csv} or {@code jsonl}, any case. */
    static final class Converter implements ITypeConverter<TimelineFormat> {
        @Override
        public TimelineFormat convert(String value) {
            try {
                return valueOf(value.trim().toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException("'" + value + "' is not a format; use csv or jsonl");
            }
        }
    }
}
