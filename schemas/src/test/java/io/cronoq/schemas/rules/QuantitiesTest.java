package io.cronoq.schemas.rules;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class QuantitiesTest {

    @ParameterizedTest(name = "{0} is {1} bytes")
    @CsvSource({
            "0, 0",
            "1073741824, 1073741824",
            "1Ki, 1024",
            "8Mi, 8388608",
            "8Gi, 8589934592",
            "2Ti, 2199023255552",
            "1Pi, 1125899906842624",
            "1k, 1000",
            "500M, 500000000",
            "8G, 8000000000",
            "3T, 3000000000000",
            "1P, 1000000000000000",
            "1.5Gi, 1610612736",
            "0.5k, 500",
            ".5Ki, 512",
            "' 8Gi ', 8589934592"
    })
    void memoryAndDiskReadPlainBytesAndEveryKubernetesSuffix(String quantity, long bytes) {
        assertThat(Quantities.parseBytes("resources.memory", quantity)).isEqualTo(bytes);
    }

    @Test
    void aFractionOfAByteRoundsUpAsInKubernetes() {
        assertThat(Quantities.parseBytes("resources.memory", "0.1Ki")).isEqualTo(103);
        assertThat(Quantities.parseBytes("resources.memory", "1.5")).isEqualTo(2);
    }

    @ParameterizedTest(name = "{0} is {1} millicores")
    @CsvSource({"0, 0", "2, 2000", "0.5, 500", "1.25, 1250", ".1, 100", "500m, 500", "1500m, 1500", "2.000, 2000"})
    void cpuReadsCoresAndMillicores(String quantity, long millis) {
        assertThat(Quantities.parseCpuMillis("resources.cpu", quantity)).isEqualTo(millis);
    }

    @Test
    void lowerCaseMOnMemoryIsRefusedNotReadAsMilliBytes() {
        assertThatThrownBy(() -> Quantities.parseBytes("resources.memory", "512m"))
                .isInstanceOfSatisfying(InvalidInputException.class, e -> {
                    assertThat(e.field()).isEqualTo("resources.memory");
                    assertThat(e.getMessage()).contains("'512m'").contains("write M or Mi").contains("Ki Mi Gi Ti Pi");
                });
    }

    @ParameterizedTest
    @ValueSource(strings = {"8GB", "8GiB", "8gb", "8Kb"})
    void byteUnitsWithABAreRefusedWithTheSuffixToWrite(String quantity) {
        assertThatThrownBy(() -> Quantities.parseBytes("resources.disk", quantity))
                .isInstanceOf(InvalidInputException.class)
                .hasMessageContaining("'" + quantity + "'")
                .hasMessageContaining("drop the B")
                .hasMessageContaining("powers of 1024");
    }

    @Test
    void upperCaseKIsRefusedWithBothKiloForms() {
        assertThatThrownBy(() -> Quantities.parseBytes("resources.memory", "8K"))
                .hasMessageContaining("write k for 1000 or Ki for 1024");
    }

    @ParameterizedTest
    @ValueSource(strings = {"8 Gi", "8X", "8Ei", "1e9", "Gi", "eight", "8.", "0x10", "1,5Gi", "+8Gi"})
    void anythingElseIsRefusedWithTheValueAndTheAcceptedForms(String quantity) {
        assertThatThrownBy(() -> Quantities.parseBytes("resources.memory", quantity))
                .isInstanceOfSatisfying(InvalidInputException.class, e -> {
                    assertThat(e.field()).isEqualTo("resources.memory");
                    assertThat(e.getMessage()).contains("'" + quantity + "'").contains(Quantities.BYTES_FORMS);
                });
    }

    @Test
    void negativeQuantitiesAreRefusedAsNegative() {
        assertThatThrownBy(() -> Quantities.parseBytes("resources.memory", "-1Gi")).hasMessageContaining("is negative");
        assertThatThrownBy(() -> Quantities.parseCpuMillis("resources.cpu", "-500m")).hasMessageContaining("is negative");
    }

    @Test
    void emptyQuantitiesAreRefused() {
        assertThatThrownBy(() -> Quantities.parseBytes("resources.disk", "")).hasMessageContaining("resources.disk is empty");
        assertThatThrownBy(() -> Quantities.parseCpuMillis("resources.cpu", null)).hasMessageContaining("resources.cpu is empty");
    }

    @Test
    void quantitiesBeyondALongAreRefused() {
        assertThatThrownBy(() -> Quantities.parseBytes("resources.disk", "9000Pi")).hasMessageContaining("more bytes");
        assertThatThrownBy(() -> Quantities.parseCpuMillis("resources.cpu", "99999999999999999999"))
                .hasMessageContaining("more cpu");
    }

    @ParameterizedTest
    @ValueSource(strings = {"500Mi", "2k", "1Gi", "2c", "half"})
    void cpuRefusesEveryUnitButM(String quantity) {
        assertThatThrownBy(() -> Quantities.parseCpuMillis("resources.cpu", quantity))
                .isInstanceOfSatisfying(InvalidInputException.class, e -> {
                    assertThat(e.field()).isEqualTo("resources.cpu");
                    assertThat(e.getMessage()).contains("'" + quantity + "'").contains(Quantities.CPU_FORMS);
                });
    }

    @Test
    void cpuFinerThanAMillicoreIsRefused() {
        assertThatThrownBy(() -> Quantities.parseCpuMillis("resources.cpu", "0.0005")).hasMessageContaining("finer than 1m");
        assertThatThrownBy(() -> Quantities.parseCpuMillis("resources.cpu", "1.5m")).hasMessageContaining("finer than 1m");
    }

    @Test
    void formattingPicksTheLargestExactBinaryUnit() {
        assertThat(Quantities.formatBytes(8L << 30)).isEqualTo("8Gi");
        assertThat(Quantities.formatBytes(1536L << 20)).isEqualTo("1536Mi");
        assertThat(Quantities.formatBytes(1000)).isEqualTo("1000");
        assertThat(Quantities.formatCpu(2000)).isEqualTo("2");
        assertThat(Quantities.formatCpu(500)).isEqualTo("500m");
    }
}
