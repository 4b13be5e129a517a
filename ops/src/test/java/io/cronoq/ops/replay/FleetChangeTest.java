package io.cronoq.ops.replay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Reading {@code --add-workers} and {@code --remove-group} values. */
class FleetChangeTest {

    @Test
    void addWorkersReadsPoolLabelsCountAndSlots() {
        assertThat(FleetChange.AddWorkers.parse("batch:gpu=a100,mem=high:2x4"))
                .isEqualTo(new FleetChange.AddWorkers("batch", Map.of("gpu", "a100", "mem", "high"), 2, 4));
    }

    @Test
    void emptyLabelsMeanTheUnlabeledGroup() {
        assertThat(FleetChange.AddWorkers.parse("batch::3x1").labels()).isEmpty();
        assertThat(FleetChange.RemoveGroup.parse("batch:").labels()).isEmpty();
    }

    @Test
    void aPoolNameMayHoldColonsBecauseFieldsAreSplitFromTheRight() {
        assertThat(FleetChange.AddWorkers.parse("team:ml:gpu=a100:1x2").pool()).isEqualTo("team:ml");
        assertThat(FleetChange.RemoveGroup.parse("team:ml:gpu=a100"))
                .isEqualTo(new FleetChange.RemoveGroup("team:ml", Map.of("gpu", "a100")));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "batch:gpu=a100        | POOL:LABELS:COUNTxSLOTS",
        "batch:gpu=a100:2      | COUNTxSLOTS",
        "batch:gpu=a100:0x4    | COUNT is 0",
        "batch:gpu=a100:2x0    | slots is 0",
        "batch:gpu:2x4         | not name=value",
        "batch:gpu=a1 00:2x4   | label value",
        ":gpu=a100:2x4         | not a pool name",
        "batch:a=1,a=2:1x1     | given twice"})
    void aMalformedAddWorkersSaysWhatIsWrong(String value, String message) {
        assertThatThrownBy(() -> FleetChange.AddWorkers.parse(value)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(message);
    }

    @Test
    void aRemoveGroupMatchesExactlyItsLabels() {
        FleetChange change = new FleetChange(List.of(),
                List.of(FleetChange.RemoveGroup.parse("batch:gpu=a100")));

        assertThat(change.removes("batch", Map.of("gpu", "a100"))).isTrue();
        assertThat(change.removes("batch", Map.of("gpu", "a100", "mem", "high"))).isFalse();
        assertThat(change.removes("other", Map.of("gpu", "a100"))).isFalse();
    }
}
