package io.cronoq.agent;

import static org.assertj.core.api.Assertions.assertThat;

import io.cronoq.events.Gpu;
import io.cronoq.events.WorkerResources;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What a worker publishes: detected resources, never a crash when nvidia-smi is missing or broken, overrides. */
class ResourceDetectorTest {

    private static final long MIB = 1024L * 1024L;

    @TempDir
    Path dir;

    @Test
    void withoutNvidiaSmiThereAreNoGpusAndTheRestIsDetected() {
        ResourceDetector detector = ResourceDetector.withGpuProbe(
                new NvidiaSmi(dir.resolve("no-such-nvidia-smi").toString(), Duration.ofSeconds(5)));

        WorkerResources r = detector.detect(dir, Map.of("torch", "2.1.0"), ResourceOverrides.NONE);

        assertThat(r.getGpus()).isEmpty();
        assertThat(r.getCpuMillis()).isEqualTo(Runtime.getRuntime().availableProcessors() * 1000L);
        assertThat(r.getMemoryBytes()).isPositive();
        assertThat(r.getDiskBytes()).isPositive();
        assertThat(r.getPackages()).containsExactlyEntriesOf(Map.of("torch", "2.1.0"));
    }

    @Test
    void aFailingNvidiaSmiMeansNoGpus() throws IOException {
        Path failing = script("echo 'NVIDIA-SMI has failed because it could not communicate with the driver' >&2\n"
                + "exit 9\n");
        assertThat(new NvidiaSmi(failing.toString(), Duration.ofSeconds(5)).gpus()).isEmpty();
    }

    @Test
    void aHangingNvidiaSmiMeansNoGpus() throws IOException {
        Path hanging = script("exec sleep 30\n");
        assertThat(new NvidiaSmi(hanging.toString(), Duration.ofMillis(300)).gpus()).isEmpty();
    }

    @Test
    void theGpusNvidiaSmiReportsArePublishedWithTheirMemory() throws IOException {
        Path smi = script("echo '0, NVIDIA A100-SXM4-40GB, 40960, 40000'\necho '1, NVIDIA A100-SXM4-40GB, 40960, 12'\n");
        List<Gpu> gpus = new NvidiaSmi(smi.toString(), Duration.ofSeconds(5)).gpus();
        assertThat(gpus).hasSize(2);
        assertThat(gpus.get(0).getModel()).isEqualTo("NVIDIA A100-SXM4-40GB");
        assertThat(gpus.get(0).getMemoryBytes()).isEqualTo(40960 * MIB);
        assertThat(gpus.get(1).getMemoryFreeBytes()).isEqualTo(12 * MIB);
    }

    @Test
    void unreadableLinesAreSkippedAndTheOthersKept() {
        assertThat(NvidiaSmi.parse("garbage\n0, T4, 15360, 15000\n1, T4, [N/A], [N/A]\n"))
                .extracting(Gpu::getIndex).containsExactly(0);
    }

    @Test
    void overridesReplaceWhatWasDetected() {
        ResourceDetector detector = new ResourceDetector(() -> 8000, () -> 64 * 1024 * MIB,
                () -> List.of(new Gpu(0, "T4", 15360 * MIB, 15000 * MIB)));
        ResourceOverrides overrides = ResourceOverrides.NONE.withCpuMillis(500L).withMemoryBytes(2048 * MIB)
                .withDiskBytes(10L).withGpus(3, 24 * 1024 * MIB);

        WorkerResources r = detector.detect(dir, Map.of(), overrides);

        assertThat(r.getCpuMillis()).isEqualTo(500);
        assertThat(r.getMemoryBytes()).isEqualTo(2048 * MIB);
        assertThat(r.getDiskBytes()).isEqualTo(10);
        assertThat(r.getGpus()).extracting(Gpu::getIndex).containsExactly(0, 1, 2);
        assertThat(r.getGpus().get(0).getModel()).as("the detected GPU is kept").isEqualTo("T4");
        assertThat(r.getGpus().get(2).getMemoryBytes()).isEqualTo(24 * 1024 * MIB);
        assertThat(detector.detect(dir, Map.of(), ResourceOverrides.NONE.withGpus(0, null)).getGpus()).isEmpty();
    }

    private Path script(String body) throws IOException {
        Path file = Files.createTempFile(dir, "nvidia-smi", ".sh");
        Files.writeString(file, "#!/bin/sh\n" + body);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwx------"));
        return file;
    }
}
