package io.cronoq.schemas.rules;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Arrays;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

class QuantitiesTest {

    /*
     * The parse table Kubernetes tests its own quantity parser with, every input of it, with the value
     * in cronoq's units: bytes for memory and disk, thousandths of a core for cpu. Kubernetes rounds
     * a fraction up to its smallest unit and saturates beyond its maximum; cronoq refuses both
     * instead (the *_REFUSED tables), because a request for 1.0001Ki bytes or 9Ei is a mistake to
     * report, not a value to guess.
     */

    private static final String[] KUBERNETES_TABLE_AS_BYTES = {
            "0, 0", "0n, 0", "0u, 0", "0Ki, 0", "0k, 0", "0Mi, 0", "0M, 0", "0Gi, 0", "0G, 0", "0Ti, 0", "0T, 0",
            "1, 1", "1Ki, 1024", "8Ki, 8192", "7Mi, 7340032", "6Gi, 6442450944", "5Ti, 5497558138880",
            "4Pi, 4503599627370496", "3Ei, 3458764513820540928", "10Ti, 10995116277760", "100Ti, 109951162777600",
            "9, 9", "8k, 8000", "50k, 50000", "7M, 7000000", "6G, 6000000000", "5T, 5000000000000",
            "40T, 40000000000000", "300T, 300000000000000", "2P, 2000000000000000", "1E, 1000000000000000000",
            "1e3, 1000", "1E6, 1000000", "1e9, 1000000000", "1E12, 1000000000000", "1e15, 1000000000000000",
            "1E18, 1000000000000000000", "1e14, 100000000000000", "1e13, 10000000000000", "100.035k, 100035",
            "10.035M, 10035000", "1.2e3, 1200", "1.3E+6, 1300000", "1.40e9, 1400000000", "1.53E12, 1530000000000",
            "1.6e15, 1600000000000000", "1.7E18, 1700000000000000000", "8.1k, 8100", "7.123456M, 7123456",
            "6.987654321G, 6987654321", "5.444T, 5444000000000", "40.1T, 40100000000000", "300.2T, 300200000000000",
            "2.5P, 2500000000000000", "1.01E, 1010000000000000000", "0.5Mi, 524288", "1., 1", "1.G, 1000000000"
    };

    private static final String[] KUBERNETES_TABLE_REFUSED_AS_BYTES = {
            // m is a thousandth: 512m of memory means 512M or 512Mi, not half a byte
            "0m| 'm', which cronoq does not read on bytes", "3m| 'm', which cronoq does not read on bytes",
            // a fraction of a byte (Kubernetes rounds it up)
            "5n| not a whole number of bytes", "4u| not a whole number of bytes", "1E-3| not a whole number of bytes",
            "0.001| not a whole number of bytes", "0.0005k| not a whole number of bytes",
            "0.005| not a whole number of bytes", "0.05| not a whole number of bytes",
            "0.5| not a whole number of bytes", "0.00050k| not a whole number of bytes",
            "0.00500| not a whole number of bytes", "0.05000| not a whole number of bytes",
            "0.50000| not a whole number of bytes", "0.5e0| not a whole number of bytes",
            "0.5e-1| not a whole number of bytes", "0.5e-2| not a whole number of bytes",
            "9.01| not a whole number of bytes", "3.001n| not a whole number of bytes",
            "1.1E-9| not a whole number of bytes", "0.0000000001| not a whole number of bytes",
            "0.0000000005| not a whole number of bytes", "0.00000000050| not a whole number of bytes",
            "0.5e-9| not a whole number of bytes", "0.9n| not a whole number of bytes",
            "0.00000012345| not a whole number of bytes", "0.00000012354| not a whole number of bytes",
            "100.035Ki| not a whole number of bytes", "0.05Gi| not a whole number of bytes",
            "0.025Ti| not a whole number of bytes", "0.000000000001Ki| not a whole number of bytes",
            ".001| not a whole number of bytes", ".0001k| not a whole number of bytes",
            // beyond a long (Kubernetes saturates at its maximum)
            "9Ei| beyond what cronoq can count", "9223372036854775807Ki| beyond what cronoq can count",
            "12E| beyond what cronoq can count"
    };

    private static final String[] KUBERNETES_TABLE_AS_MILLICORES = {
            "0, 0", "0n, 0", "0u, 0", "0m, 0", "1, 1000", "3m, 3", "9, 9000", "1E-3, 1", "1e3, 1000000",
            "1E6, 1000000000", "1e9, 1000000000000", "1E12, 1000000000000000", "1e15, 1000000000000000000",
            "1e14, 100000000000000000", "1e13, 10000000000000000", "0.001, 1", "0.005, 5", "0.05, 50", "0.5, 500",
            "0.00500, 5", "0.05000, 50", "0.50000, 500", "0.5e0, 500", "0.5e-1, 50", "0.5e-2, 5", "1.2e3, 1200000",
            "1.3E+6, 1300000000", "1.40e9, 1400000000000", "1.53E12, 1530000000000000",
            "1.6e15, 1600000000000000000", "9.01, 9010", ".001, 1", "1., 1000"
    };

    private static final String[] KUBERNETES_TABLE_REFUSED_AS_CPU = {
            // the size suffixes are not cpu units: 2k cores is a slip for 2 or 2000m
            "0Ki| not a cpu unit", "0k| not a cpu unit", "0Mi| not a cpu unit", "0M| not a cpu unit",
            "0Gi| not a cpu unit", "0G| not a cpu unit", "0Ti| not a cpu unit", "0T| not a cpu unit",
            "1Ki| not a cpu unit", "8Ki| not a cpu unit", "7Mi| not a cpu unit", "6Gi| not a cpu unit",
            "5Ti| not a cpu unit", "4Pi| not a cpu unit", "3Ei| not a cpu unit", "10Ti| not a cpu unit",
            "100Ti| not a cpu unit", "8k| not a cpu unit", "50k| not a cpu unit", "7M| not a cpu unit",
            "6G| not a cpu unit", "5T| not a cpu unit", "40T| not a cpu unit", "300T| not a cpu unit",
            "2P| not a cpu unit", "1E| not a cpu unit", "100.035k| not a cpu unit", "0.0005k| not a cpu unit",
            "0.00050k| not a cpu unit", "10.035M| not a cpu unit", "8.1k| not a cpu unit",
            "7.123456M| not a cpu unit", "6.987654321G| not a cpu unit", "5.444T| not a cpu unit",
            "40.1T| not a cpu unit", "300.2T| not a cpu unit", "2.5P| not a cpu unit", "1.01E| not a cpu unit",
            "9Ei| not a cpu unit", "9223372036854775807Ki| not a cpu unit", "12E| not a cpu unit",
            "100.035Ki| not a cpu unit", "0.5Mi| not a cpu unit", "0.05Gi| not a cpu unit",
            "0.025Ti| not a cpu unit", "0.000000000001Ki| not a cpu unit", ".0001k| not a cpu unit",
            "1.G| not a cpu unit",
            // finer than a thousandth of a core, as Kubernetes refuses for cpu requests
            "5n| finer than 1m", "4u| finer than 1m", "3.001n| finer than 1m", "1.1E-9| finer than 1m",
            "0.0000000001| finer than 1m", "0.0000000005| finer than 1m", "0.00000000050| finer than 1m",
            "0.5e-9| finer than 1m", "0.9n| finer than 1m", "0.00000012345| finer than 1m",
            "0.00000012354| finer than 1m",
            // beyond a long of millicores
            "1E18| beyond what cronoq can count", "1.7E18| beyond what cronoq can count"
    };

    static Stream<Arguments> kubernetesBytes() {
        return pairs(KUBERNETES_TABLE_AS_BYTES, ",");
    }

    static Stream<Arguments> kubernetesBytesRefused() {
        return pairs(KUBERNETES_TABLE_REFUSED_AS_BYTES, "\\|");
    }

    static Stream<Arguments> kubernetesMillicores() {
        return pairs(KUBERNETES_TABLE_AS_MILLICORES, ",");
    }

    static Stream<Arguments> kubernetesCpuRefused() {
        return pairs(KUBERNETES_TABLE_REFUSED_AS_CPU, "\\|");
    }

    private static Stream<Arguments> pairs(String[] rows, String separator) {
        return Arrays.stream(rows).map(r -> r.split(separator, 2))
                .map(p -> Arguments.of(p[0].strip(), p[1].strip()));
    }

    @ParameterizedTest(name = "{0} is {1} bytes")
    @MethodSource("kubernetesBytes")
    void kubernetesParseTableAsBytes(String quantity, String bytes) {
        long expected = Long.parseLong(bytes);
        assertThat(Quantities.parseBytes("resources.memory", quantity)).isEqualTo(expected);
        // Kubernetes' table is also read with an explicit + and, negated, as the negative value.
        assertThat(Quantities.parseBytes("resources.memory", "+" + quantity)).isEqualTo(expected);
        if (expected == 0) {
            assertThat(Quantities.parseBytes("resources.memory", "-" + quantity)).isZero();
        } else {
            assertThatThrownBy(() -> Quantities.parseBytes("resources.memory", "-" + quantity))
                    .isInstanceOf(InvalidInputException.class).hasMessageContaining("is negative")
                    .hasMessageContaining("drop the '-'");
        }
    }

    @ParameterizedTest(name = "{0} is refused as bytes: {1}")
    @MethodSource("kubernetesBytesRefused")
    void kubernetesParseTableInputsCronoqRefusesAsBytes(String quantity, String reason) {
        assertThatThrownBy(() -> Quantities.parseBytes("resources.disk", quantity))
                .isInstanceOfSatisfying(InvalidInputException.class, e -> {
                    assertThat(e.field()).isEqualTo("resources.disk");
                    assertThat(e.getMessage()).contains("resources.disk '" + quantity + "'").contains(reason);
                });
    }

    @ParameterizedTest(name = "{0} is {1} millicores")
    @MethodSource("kubernetesMillicores")
    void kubernetesParseTableAsMillicores(String quantity, String millis) {
        long expected = Long.parseLong(millis);
        assertThat(Quantities.parseCpuMillis("resources.cpu", quantity)).isEqualTo(expected);
        assertThat(Quantities.parseCpuMillis("resources.cpu", "+" + quantity)).isEqualTo(expected);
        if (expected != 0) {
            assertThatThrownBy(() -> Quantities.parseCpuMillis("resources.cpu", "-" + quantity))
                    .hasMessageContaining("is negative");
        }
    }

    @ParameterizedTest(name = "{0} is refused as cpu: {1}")
    @MethodSource("kubernetesCpuRefused")
    void kubernetesParseTableInputsCronoqRefusesAsCpu(String quantity, String reason) {
        assertThatThrownBy(() -> Quantities.parseCpuMillis("resources.cpu", quantity))
                .isInstanceOfSatisfying(InvalidInputException.class, e -> {
                    assertThat(e.field()).isEqualTo("resources.cpu");
                    assertThat(e.getMessage()).contains("'" + quantity + "'").contains(reason)
                            .contains(reason.contains("beyond") ? "request at most" : Quantities.CPU_FORMS);
                });
    }

    /** Kubernetes' own invalid inputs; cronoq refuses them too, with the accepted forms. */
    @ParameterizedTest
    @ValueSource(strings = {"1.1.M", "1+1.0M", "0.1mi", "0.1am", "aoeu", ".5i", "1i", "-3.01i", "-3.01e-", "1e",
            "1e+", "1e1.5", "1e.5", "1e3k", "1E3Ki", "1e+-3", "5e2m", "1..5", "++1", "+-1", "1-", "1_000", "1/2", "Inf", "NaN",
            "\uFF11", "\u0663", "\u22121", ".", "-.", "+", "-"})
    void kubernetesInvalidInputsAreRefused(String quantity) {
        assertThatThrownBy(() -> Quantities.parseBytes("resources.memory", quantity))
                .isInstanceOfSatisfying(InvalidInputException.class, e -> assertThat(e.getMessage())
                        .contains("'" + quantity + "'").contains(Quantities.BYTES_FORMS));
        assertThatThrownBy(() -> Quantities.parseCpuMillis("resources.cpu", quantity))
                .isInstanceOfSatisfying(InvalidInputException.class, e -> assertThat(e.getMessage())
                        .contains("'" + quantity + "'").contains(Quantities.CPU_FORMS));
    }

    @Test
    void surroundingWhitespaceIsDroppedThoughKubernetesForbidsIt() {
        // A deliberate leniency kept from before: " 1" and "1 " are refused by Kubernetes.
        assertThat(Quantities.parseBytes("resources.memory", " 1")).isEqualTo(1);
        assertThat(Quantities.parseBytes("resources.memory", "1 ")).isEqualTo(1);
    }

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
            "' 8Gi ', 8589934592",
            "+1Ki, 1024",
            "+6Gi, 6442450944",
            "+0.5Mi, 524288",
            "+0, 0",
            "-0, 0",
            "-0.0Gi, 0",
            "1.5Ki, 1536",
            "1e3, 1000",
            "1E3, 1000",
            "1e+3, 1000",
            "1000e-3, 1",
            "7Ei, 8070450532247928832",
            "9223372036854775807, 9223372036854775807",
            "0.5e1, 5",
            "1000000000n, 1",
            "1000000u, 1",
            "0e999999999, 0"
    })
    void memoryAndDiskReadEveryKubernetesFormThatIsAWholeNumberOfBytes(String quantity, long bytes) {
        assertThat(Quantities.parseBytes("resources.memory", quantity)).isEqualTo(bytes);
    }

    @ParameterizedTest
    @ValueSource(strings = {"0.5", "1.5", "0.1Ki", "1.0001Ki", "1e-3", "1n", "1500u"})
    void aFractionOfAByteIsRefusedWithTheWholeNumbersAround(String quantity) {
        assertThatThrownBy(() -> Quantities.parseBytes("resources.memory", quantity))
                .isInstanceOfSatisfying(InvalidInputException.class, e -> {
                    assertThat(e.field()).isEqualTo("resources.memory");
                    assertThat(e.getMessage()).contains("'" + quantity + "' is not a whole number of bytes")
                            .contains("round it to whole bytes");
                });
        assertThatThrownBy(() -> Quantities.parseBytes("resources.memory", "1.0001Ki"))
                .hasMessageContaining("e.g. 1024 or 1025");
        assertThatThrownBy(() -> Quantities.parseBytes("resources.memory", "0.1Ki"))
                .hasMessageContaining("e.g. 102 or 103");
    }

    @ParameterizedTest(name = "{0} is {1} millicores")
    @CsvSource({"0, 0", "2, 2000", "0.5, 500", "1.25, 1250", ".1, 100", "500m, 500", "1500m, 1500", "2.000, 2000",
            "+2, 2000", "-0m, 0", "1000000u, 1000", "1000000n, 1", "500000u, 500", "1e1, 10000", "1e-3, 1",
            "2., 2000", "5e2, 500000"})
    void cpuReadsCoresMillicoresAndTheFinerUnitsWhenWhole(String quantity, long millis) {
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
    @ValueSource(strings = {"8GB", "8GiB", "8gb", "8Kb", "8EB"})
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
    @ValueSource(strings = {"8 Gi", "8X", "Gi", "eight", "0x10", "1,5Gi", "8Zi"})
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
        assertThatThrownBy(() -> Quantities.parseBytes("resources.memory", "-1e999999999"))
                .hasMessageContaining("is negative");
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
        // 8Ei is 2^63, one more than a long holds.
        assertThatThrownBy(() -> Quantities.parseBytes("resources.disk", "8Ei"))
                .hasMessageContaining("beyond what cronoq can count");
        assertThatThrownBy(() -> Quantities.parseBytes("resources.disk", "9223372036854775808"))
                .hasMessageContaining("beyond what cronoq can count");
        assertThatThrownBy(() -> Quantities.parseBytes("resources.disk", "9223372036854775807.5"))
                .hasMessageContaining("beyond what cronoq can count");
    }

    @ParameterizedTest
    @ValueSource(strings = {"1e999999999", "1e400", "1E99999999999999999999", "1e9223372036854775807",
            "1e18446744073709551616", "123e19"})
    void hostileExponentsAreRefusedCleanlyAndFast(String quantity) {
        org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(Duration.ofSeconds(1), () -> {
            assertThatThrownBy(() -> Quantities.parseBytes("resources.memory", quantity))
                    .isExactlyInstanceOf(InvalidInputException.class)
                    .hasMessageContaining("'" + quantity + "' is beyond what cronoq can count");
            assertThatThrownBy(() -> Quantities.parseCpuMillis("resources.cpu", quantity))
                    .isExactlyInstanceOf(InvalidInputException.class)
                    .hasMessageContaining("beyond what cronoq can count");
        });
    }

    @Test
    void hostileTinyValuesAndLongDigitStringsAreRefusedCleanlyAndFast() {
        String manyDigits = "1".repeat(200_000);
        org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(Duration.ofSeconds(2), () -> {
            assertThatThrownBy(() -> Quantities.parseBytes("resources.memory", "1e-999999999"))
                    .isExactlyInstanceOf(InvalidInputException.class).hasMessageContaining("not a whole number of bytes");
            assertThatThrownBy(() -> Quantities.parseCpuMillis("resources.cpu", "1e-999999999"))
                    .isExactlyInstanceOf(InvalidInputException.class).hasMessageContaining("finer than 1m");
            assertThatThrownBy(() -> Quantities.parseBytes("resources.memory", manyDigits))
                    .isExactlyInstanceOf(InvalidInputException.class).hasMessageContaining("beyond what cronoq can count");
            assertThatThrownBy(() -> Quantities.parseBytes("resources.memory", "0." + manyDigits))
                    .isExactlyInstanceOf(InvalidInputException.class).hasMessageContaining("not a whole number of bytes");
            assertThatThrownBy(() -> Quantities.parseBytes("resources.memory", manyDigits + "e-199990"))
                    .isExactlyInstanceOf(InvalidInputException.class).hasMessageContaining("not a whole number of bytes");
            assertThat(Quantities.parseBytes("resources.memory", "0".repeat(200_000) + "1")).isEqualTo(1);
            assertThat(Quantities.parseBytes("resources.memory", "1" + "0".repeat(200_000) + "e-200000"))
                    .isEqualTo(1);
        });
    }

    @ParameterizedTest
    @ValueSource(strings = {"500Mi", "2k", "1Gi", "2c", "half", "1E"})
    void cpuRefusesEveryUnitButMUAndN(String quantity) {
        assertThatThrownBy(() -> Quantities.parseCpuMillis("resources.cpu", quantity))
                .isInstanceOfSatisfying(InvalidInputException.class, e -> {
                    assertThat(e.field()).isEqualTo("resources.cpu");
                    assertThat(e.getMessage()).contains("'" + quantity + "'").contains(Quantities.CPU_FORMS);
                });
    }

    @Test
    void cpuFinerThanAMillicoreIsRefused() {
        assertThatThrownBy(() -> Quantities.parseCpuMillis("resources.cpu", "0.0005")).hasMessageContaining("finer than 1m");
        assertThatThrownBy(() -> Quantities.parseCpuMillis("resources.cpu", "1.5m")).hasMessageContaining("finer than 1m")
                .hasMessageContaining("e.g. 1m or 2m");
        assertThatThrownBy(() -> Quantities.parseCpuMillis("resources.cpu", "1000n")).hasMessageContaining("finer than 1m");
    }

    @Test
    void formattingPicksTheLargestExactBinaryUnit() {
        assertThat(Quantities.formatBytes(8L << 30)).isEqualTo("8Gi");
        assertThat(Quantities.formatBytes(1536L << 20)).isEqualTo("1536Mi");
        assertThat(Quantities.formatBytes(1000)).isEqualTo("1k");
        assertThat(Quantities.formatBytes(500_000_000)).isEqualTo("500M");
        assertThat(Quantities.formatBytes(1001)).isEqualTo("1001");
        assertThat(Quantities.formatBytes(3L << 60)).isEqualTo("3Ei");
        assertThat(Quantities.formatCpu(2000)).isEqualTo("2");
        assertThat(Quantities.formatCpu(500)).isEqualTo("500m");
    }

    @Test
    void formattedQuantitiesParseBack() {
        for (long bytes : new long[] {0, 1, 1023, 1024, 8L << 30, 3L << 60, Long.MAX_VALUE}) {
            assertThat(Quantities.parseBytes("b", Quantities.formatBytes(bytes))).isEqualTo(bytes);
        }
        for (long millis : new long[] {0, 1, 999, 1000, 2500, Long.MAX_VALUE}) {
            assertThat(Quantities.parseCpuMillis("c", Quantities.formatCpu(millis))).isEqualTo(millis);
        }
    }
}
