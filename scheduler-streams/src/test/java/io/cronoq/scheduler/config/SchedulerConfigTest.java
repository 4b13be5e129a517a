package io.cronoq.scheduler.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cronoq.scheduler.policy.TimeRules;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The scheduler's settings as the policy receives them, and what a bad value is told. */
class SchedulerConfigTest {

    @Test
    void finishedTasksAreKeptSevenDaysUnlessTheSettingsSayOtherwise() {
        assertThat(SchedulerConfig.defaults().timeRules()).isEqualTo(TimeRules.DEFAULT);
        assertThat(TimeRules.DEFAULT.retentionMs()).isEqualTo(7L * 24 * 3600 * 1000);

        String thirtyDays = String.valueOf(30L * 24 * 3600 * 1000); // beyond an int of ms
        assertThat(SchedulerConfig.of(Map.of(SchedulerConfig.TASK_RETENTION_MS.name(), thirtyDays)).timeRules()
                .retentionMs()).isEqualTo(30L * 24 * 3600 * 1000);
        assertThat(SchedulerConfig.of(Map.of(SchedulerConfig.TASK_RETENTION_MS.name(), "0")).timeRules()
                .retentionMs()).as("0 keeps finished tasks forever").isZero();
    }

    @Test
    void aBadRetentionIsRefusedNamingTheSettingAndWhatIsAllowed() {
        assertThatThrownBy(() -> SchedulerConfig.of(Map.of(SchedulerConfig.TASK_RETENTION_MS.name(), "-1")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("cronoq.task.retention.ms is -1; it must be 0 or more");
        assertThatThrownBy(() -> SchedulerConfig.of(Map.of(SchedulerConfig.TASK_RETENTION_MS.name(), "7d")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("cronoq.task.retention.ms is '7d'; it must be a whole number of ms");
    }

    @Test
    void aLeavingWorkersReportsAreAwaitedFiveSecondsUnlessTheSettingsSayOtherwise() {
        assertThat(SchedulerConfig.defaults().timeRules().leaveGraceMs()).isEqualTo(5_000);
        assertThat(SchedulerConfig.of(Map.of(SchedulerConfig.LEAVE_GRACE_MS.name(), "12000")).timeRules()
                .leaveGraceMs()).isEqualTo(12_000);
        assertThat(SchedulerConfig.of(Map.of(SchedulerConfig.LEAVE_GRACE_MS.name(), "0")).timeRules()
                .leaveGraceMs()).as("0 loses a leaving worker's attempts at its leave").isZero();
        assertThatThrownBy(() -> SchedulerConfig.of(Map.of(SchedulerConfig.LEAVE_GRACE_MS.name(), "-1")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("cronoq.leave.grace.ms is -1; it must be at least 0");
        assertThatThrownBy(() -> SchedulerConfig.of(Map.of(SchedulerConfig.LEAVE_GRACE_MS.name(), "5s")))
                .hasMessage("cronoq.leave.grace.ms is '5s'; it must be a whole number");
        assertThatThrownBy(() -> TimeRules.DEFAULT.withLeaveGraceMs(-1))
                .hasMessage("leaveGraceMs is -1; it must be 0 or more");
    }

    @Test
    void theGatewaysBindAddressIsASettingThatCannotBeEmpty() {
        assertThat(SchedulerConfig.defaults().get(SchedulerConfig.HTTP_BIND)).isEqualTo("0.0.0.0");
        assertThat(SchedulerConfig.of(Map.of("cronoq.http.bind", "127.0.0.1")).get(SchedulerConfig.HTTP_BIND))
                .isEqualTo("127.0.0.1");
        assertThatThrownBy(() -> SchedulerConfig.of(Map.of("cronoq.http.bind", " ")))
                .hasMessageContaining("cronoq.http.bind").hasMessageContaining("127.0.0.1");
    }
}
