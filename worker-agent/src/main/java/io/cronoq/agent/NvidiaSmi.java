package io.cronoq.agent;

import io.cronoq.events.Gpu;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds the NVIDIA GPUs of this machine by asking {@code nvidia-smi}. Never fails: a missing {@code nvidia-smi},
 * one that exits non-zero, hangs past its timeout or prints something unreadable means no GPUs (logged once at
 * WARN, or at DEBUG when it is simply not installed). Non-NVIDIA accelerators are not detected: advertise them
 * with labels.
 *
 * @param executable {@code nvidia-smi} (looked up on PATH) or a path to it
 * @param timeout    how long the query may take before it counts as failed
 */
public record NvidiaSmi(String executable, Duration timeout) {

    /** The query cronoq runs: one CSV line per GPU, memory in MiB. */
    public static final List<String> QUERY = List.of("--query-gpu=index,name,memory.total,memory.free",
            "--format=csv,noheader,nounits");

    private static final Logger log = LoggerFactory.getLogger(NvidiaSmi.class);
    private static final long MIB = 1024L * 1024L;

    /** {@code nvidia-smi} on PATH with a 10 s timeout. */
    public static NvidiaSmi onPath() {
        return new NvidiaSmi("nvidia-smi", Duration.ofSeconds(10));
    }

    /** The GPUs {@code nvidia-smi} reports, or none when it cannot be asked. */
    public List<Gpu> gpus() {
        List<String> command = new ArrayList<>();
        command.add(executable);
        command.addAll(QUERY);
        Process process;
        try {
            process = new ProcessBuilder(command).redirectErrorStream(true).start();
        } catch (IOException e) {
            log.debug("No GPUs: {} could not be started ({})", executable, e.getMessage());
            return List.of();
        }
        try {
            process.getOutputStream().close();
            // Its few lines fit in the pipe, so waiting before reading cannot block it, and a hung one times out.
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly();
                log.warn("No GPUs: {} did not answer within {} ms", executable, timeout.toMillis());
                return List.of();
            }
            String output = readAll(process.getInputStream());
            if (process.exitValue() != 0) {
                log.warn("No GPUs: {} exited with {}: {}", executable, process.exitValue(), output.strip());
                return List.of();
            }
            return parse(output);
        } catch (IOException e) {
            process.destroyForcibly();
            log.warn("No GPUs: reading the output of {} failed", executable, e);
            return List.of();
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
            return List.of();
        }
    }

    /**
     * Reads {@code index, name, memory.total, memory.free} lines (MiB). A line that does not read is skipped with
     * a warning; the others still count.
     */
    public static List<Gpu> parse(String csv) {
        List<Gpu> gpus = new ArrayList<>();
        for (String line : csv.split("\\R")) {
            if (line.isBlank()) {
                continue;
            }
            String[] fields = line.split(",");
            if (fields.length < 4) {
                log.warn("Ignoring an nvidia-smi line that does not have 4 fields: '{}'", line);
                continue;
            }
            try {
                int n = fields.length;
                int index = Integer.parseInt(fields[0].strip());
                // A GPU name could contain a comma; the numbers are always the last two fields.
                String name = String.join(",", java.util.Arrays.copyOfRange(fields, 1, n - 2)).strip();
                long total = Long.parseLong(fields[n - 2].strip()) * MIB;
                long free = Long.parseLong(fields[n - 1].strip()) * MIB;
                gpus.add(new Gpu(index, name.isEmpty() ? null : name, total, free));
            } catch (NumberFormatException e) {
                log.warn("Ignoring an nvidia-smi line with a field that is not a number: '{}'", line);
            }
        }
        return gpus;
    }

    private static String readAll(InputStream in) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        in.transferTo(out);
        return out.toString(StandardCharsets.UTF_8);
    }
}
