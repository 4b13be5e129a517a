package io.cronoq.scheduler.policy;

import io.cronoq.scheduler.policy.match.Units;
import io.cronoq.scheduler.policy.match.ResourceNeed;
import io.cronoq.scheduler.policy.match.Requirement;
import static io.cronoq.scheduler.policy.In.labels;
import static io.cronoq.scheduler.policy.In.needs;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cronoq.events.ResourceRequest;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/** The class key: canonical, readable back, unchanged for tasks without resources; and the human units of reasons. */
class RequirementTest {

    @Test
    void keyIsCanonicalWhateverTheSpelling() {
        Requirement a = Requirement.of(labels("zone=eu", "gpu=a100"),
                needs().memory("8Gi").cpu("4").packages("Torch<3,>=2.0", "transformers", "torch>=2.0 ,<3").build());
        Requirement b = Requirement.of(labels("gpu=a100", "zone=eu"),
                needs().cpu("4000m").memory("8192Mi").packages("transformers", "torch>=2.0,<3").build());

        assertThat(a.key()).isEqualTo("gpu=a100,zone=eu|cpu=4000;mem=8589934592;pkg=torch>=2.0,<3;pkg=transformers");
        assertThat(b).isEqualTo(a);
        assertThat(b.key()).isEqualTo(a.key());
        assertThat(a.toString()).isEqualTo("gpu=a100, zone=eu, cpu 4, memory 8Gi, torch>=2.0,<3, transformers");
    }

    @Test
    void taskWithoutResourceNeedKeepsTheLabelKey() {
        assertThat(Requirement.of(labels("zone=eu", "gpu=a100"), null).key()).isEqualTo("gpu=a100,zone=eu");
        assertThat(Requirement.of(Map.of(), new ResourceRequest(0L, null, null, 0, List.of())).key()).isEmpty();
        assertThat(Requirement.of(Map.of(), needs().gpu(1).build()).key()).isEqualTo("|gpu=1");
    }

    @Test
    void keyReadsBackIntoLabelsAndRequest() {
        Requirement r = Requirement.parse("gpu=a100|cpu=500;disk=1000000000000;gpu=2;pkg=pandas~=2.1;pkg=torch==2.1.*");

        assertThat(r.labels()).isEqualTo(Map.of("gpu", "a100"));
        ResourceNeed need = r.resources();
        assertThat(need.cpuMillis()).isEqualTo(500);
        assertThat(need.memoryBytes()).isZero();
        assertThat(need.diskBytes()).isEqualTo(1_000_000_000_000L);
        assertThat(need.gpus()).isEqualTo(2);
        assertThat(need.packages()).extracting(Object::toString).containsExactly("pandas~=2.1", "torch==2.1.*");
        assertThat(need.toString()).isEqualTo("cpu 500m, disk 1T, 2 GPUs, pandas~=2.1, torch==2.1.*");
        assertThat(need.toRequest()).isEqualTo(new ResourceRequest(500L, null, 1_000_000_000_000L, 2,
                List.of("pandas~=2.1", "torch==2.1.*")));
        assertThat(Requirement.of(r.labels(), need.toRequest())).isEqualTo(r);
        assertThat(Requirement.parse("").labels()).isEmpty();
        assertThat(Requirement.parse("").resources()).isEqualTo(ResourceNeed.NONE);
    }

    @ParameterizedTest
    @ValueSource(strings = {"gpu", "gpu=a100|cpu=four", "|cpu=1;ram=2", "|pkg=torch>>2", "zone=eu,gpu=a100",
            "|mem=1;cpu=1", "|cpu=0", "gpu=a 100"})
    void malformedOrNonCanonicalKeyIsRefused(String key) {
        assertThatThrownBy(() -> Requirement.parse(key)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(key.contains(">>") ? "torch>>2" : "");
    }

    @ParameterizedTest
    @CsvSource({
            "0, 0", "512, 512", "1000, 1k", "1024, 1Ki", "8589934592, 8Gi", "8000000000, 8G", "500000000, 500M",
            "1572864000, 1500Mi", "107374182400, 100Gi", "1000000000000, 1T", "17179869185, 16Gi", "4500000123, 4.1Gi"})
    void bytesShowInTheShortestExactUnitElseRoundedDown(long bytes, String shown) {
        assertThat(Units.bytes(bytes)).isEqualTo(shown);
    }

    @ParameterizedTest
    @CsvSource({"1, 1st", "2, 2nd", "3, 3rd", "4, 4th", "11, 11th", "12, 12th", "13, 13th", "21, 21st", "112, 112th"})
    void placesInLineAreOrdinals(long n, String shown) {
        assertThat(Units.ordinal(n)).isEqualTo(shown);
    }
}
