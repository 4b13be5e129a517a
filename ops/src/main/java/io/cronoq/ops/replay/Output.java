package io.cronoq.ops.replay;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Consumer;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * Where a command writes its result (a picocli mixin): the command's stdout, or the file
 * {@code -o}/{@code --output} names, UTF-8.
 */
final class Output {

    @Option(names = {"-o", "--output"}, paramLabel = "FILE", description = "Write to this file instead of stdout.")
    Path file;

    @Spec(Spec.Target.MIXEE)
    CommandSpec command;

    /** Fails early, naming the flag, when the file's directory does not exist or the path is a directory. */
    void check() {
        if (file == null) {
            return;
        }
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null && !Files.isDirectory(parent)) {
            throw new IllegalArgumentException("--output " + file + ": directory " + parent + " does not exist");
        }
        if (Files.isDirectory(file)) {
            throw new IllegalArgumentException("--output " + file + " is a directory; name a file");
        }
    }

    /** Runs {@code write} against the file (created or replaced) or, without one, against the command's stdout. */
    void write(Consumer<PrintWriter> write) {
        if (file == null) {
            PrintWriter stdout = command.commandLine().getOut();
            write.accept(stdout);
            stdout.flush();
            return;
        }
        try (PrintWriter out = new PrintWriter(Files.newBufferedWriter(file, StandardCharsets.UTF_8))) {
            write.accept(out);
            if (out.checkError()) {
                throw new UncheckedIOException(new IOException("writing " + file + " failed"));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("could not write " + file + ": " + e.getMessage(), e);
        }
    }
}
