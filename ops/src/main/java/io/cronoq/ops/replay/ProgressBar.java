package io.cronoq.ops.replay;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * A one-line progress bar on stderr for long journal reads: records read against the records
 * between the start and the end offsets (journal entries, plus the transaction markers that
 * exactly-once writes leave between them), redrawn in place only when the shown tenth of a
 * percent changes.
 */
final class ProgressBar implements JournalReader.Progress {

    private static final int WIDTH = 30;

    private final PrintWriter err;
    private final String label;
    private int shownPermille = -1;
    private boolean drawn;

    ProgressBar(PrintWriter err, String label) {
        this.err = err;
        this.label = label;
    }

    /** Whether this process's stderr is a terminal (Linux: fd 2 is a tty; elsewhere: a console is attached). */
    static boolean stderrIsTerminal() {
        try {
            String target = Files.readSymbolicLink(Path.of("/proc/self/fd/2")).toString();
            return target.startsWith("/dev/pts/") || target.startsWith("/dev/tty");
        } catch (IOException | UnsupportedOperationException | SecurityException e) {
            return System.console() != null;
        }
    }

    @Override
    public void update(long done, long total) {
        int permille = total <= 0 ? 1000 : (int) Math.min(1000, done * 1000 / total);
        if (permille == shownPermille) {
            return;
        }
        shownPermille = permille;
        int filled = permille * WIDTH / 1000;
        err.print(String.format(Locale.ROOT, "\r%s [%s%s] %5.1f%% %,d / %,d records", label, "#".repeat(filled),
                "-".repeat(WIDTH - filled), permille / 10.0, done, total));
        err.flush();
        drawn = true;
    }

    @Override
    public void finish() {
        if (drawn) {
            err.println();
            err.flush();
        }
    }
}
