package io.cronoq.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** A gang's state from its members' states ({@code -}: a member whose record is gone). */
class GangStatesTest {

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', value = {
            "SUCCEEDED SUCCEEDED          | SUCCEEDED",
            "SUCCEEDED FAILED             | FAILED",
            "RUNNING FAILED WAITING       | FAILED",
            "RUNNING CANCELLED            | CANCELLED",
            "FAILED CANCELLED             | FAILED",
            "RUNNING ASSIGNED             | RUNNING",
            "RUNNING SUCCEEDED            | RUNNING",
            "RUNNING WAITING              | WAITING",
            "WAITING WAITING              | WAITING",
            "RUNNING -                    | RUNNING",
            "SUCCEEDED - -                | SUCCEEDED",
            "WAITING -                    | WAITING",
            "ASSIGNED                     | RUNNING"})
    void theGangsStateFollowsItsMembers(String members, String gang) {
        List<String> states = Arrays.stream(members.trim().split(" +")).map(s -> s.equals("-") ? null : s).toList();

        assertThat(GangStates.of(states)).isEqualTo(gang);
    }
}
