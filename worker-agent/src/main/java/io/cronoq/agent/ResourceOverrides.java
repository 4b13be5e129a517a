package io.cronoq.agent;

/**
 * What a worker publishes instead of what it detects, dimension by dimension; {@code null} keeps the detected
 * value. Immutable.
 *
 * @param cpuMillis      thousandths of a core
 * @param memoryBytes    memory in bytes
 * @param diskBytes      free disk of the work directory in bytes
 * @param gpuCount       how many GPUs to publish: the detected ones cut to this count, padded with GPUs of
 *                       unknown model and {@code gpuMemoryBytes} of memory
 * @param gpuMemoryBytes memory (total and free) of each padded GPU; {@code null} = 0, unknown
 */
public record ResourceOverrides(Long cpuMillis, Long memoryBytes, Long diskBytes, Integer gpuCount,
                                Long gpuMemoryBytes) {

    /** Nothing overridden. */
    public static final ResourceOverrides NONE = new ResourceOverrides(null, null, null, null, null);

    public ResourceOverrides {
        requireNotNegative("cpuMillis", cpuMillis);
        requireNotNegative("memoryBytes", memoryBytes);
        requireNotNegative("diskBytes", diskBytes);
        requireNotNegative("gpuMemoryBytes", gpuMemoryBytes);
        if (gpuCount != null && gpuCount < 0) {
            throw new IllegalArgumentException("gpuCount is " + gpuCount + "; it must be 0 or more");
        }
    }

    public ResourceOverrides withCpuMillis(Long value) {
        return new ResourceOverrides(value, memoryBytes, diskBytes, gpuCount, gpuMemoryBytes);
    }

    public ResourceOverrides withMemoryBytes(Long value) {
        return new ResourceOverrides(cpuMillis, value, diskBytes, gpuCount, gpuMemoryBytes);
    }

    public ResourceOverrides withDiskBytes(Long value) {
        return new ResourceOverrides(cpuMillis, memoryBytes, value, gpuCount, gpuMemoryBytes);
    }

    public ResourceOverrides withGpus(Integer count, Long memoryBytesEach) {
        return new ResourceOverrides(cpuMillis, memoryBytes, diskBytes, count, memoryBytesEach);
    }

    private static void requireNotNegative(String name, Long value) {
        if (value != null && value < 0) {
            throw new IllegalArgumentException(name + " is " + value + "; it must be 0 or more");
        }
    }
}
