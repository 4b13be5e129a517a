package io.cronoq.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cronoq.scheduler.config.SchedulerConfig;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/** The gateway's own settings: their defaults, their values, and a bad value refused naming the setting. */
class GatewaySettingsTest {

    @Test
    void theMostMembersOfAGangIs1024UnlessSet() {
        assertThat(GatewaySettings.gangMaxSize(SchedulerConfig.defaults())).isEqualTo(1024);
        assertThat(GatewaySettings.gangMaxSize(Map.of("cronoq.http.gang.max.size", " 16 "))).isEqualTo(16);
        assertThat(GatewaySettings.gangMaxSize(Map.of("cronoq.http.gang.max.size", "1024"))).isEqualTo(1024);
    }

    @ParameterizedTest
    @ValueSource(strings = {"0", "-4", "1025", "many", ""})
    void aBadMostMembersIsRefusedNamingTheSettingAndItsRange(String value) {
        assertThatThrownBy(() -> GatewaySettings.gangMaxSize(Map.of("cronoq.http.gang.max.size", value)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("cronoq.http.gang.max.size is '" + value + "'; it must be a whole number from 1 to 1024 "
                        + "(default 1024)");
    }
}
