package io.cronoq.ops.replay;

import static org.assertj.core.api.Assertions.assertThat;

import io.cronoq.scheduler.policy.TimeRules;
import io.cronoq.scheduler.policy.forecast.Forecaster;
import org.junit.jupiter.api.Test;

/** The accuracy measurement on a made-up drain: every waiting task is scored three ways, the forecast best. */
class EtaAccuracyTest {

    @Test
    void theForecastBeatsBothNaiveEstimatesOnADrain() {
        EtaAccuracy.Report report = EtaAccuracy.measure("drain", Workloads.record(Workloads.Kind.DRAIN, 1),
                Simulation.simulated(TimeRules.DEFAULT), 5, Forecaster.Settings.DEFAULT);

        assertThat(report.methods()).extracting(EtaAccuracy.Scores::method)
                .containsExactly("forecast", "position ÷ throughput", "declared limits");
        EtaAccuracy.Scores forecast = report.methods().get(0);
        assertThat(forecast.scored()).as("the tasks waiting at five instants of a 3,000-task drain").isGreaterThan(1_000);
        assertThat(forecast.given()).isEqualTo(1.0);
        assertThat(forecast.inside()).isBetween(0.0, 1.0);
        for (EtaAccuracy.Scores naive : report.methods().subList(1, 3)) {
            assertThat(naive.scored()).isEqualTo(forecast.scored());
            assertThat(forecast.medianError()).as("forecast against %s", naive.method()).isLessThan(naive.medianError());
        }
    }

    @Test
    void aRecordedBusyDayOfSeveralPoolsIsMeasuredWhole() {
        EtaAccuracy.Report report = EtaAccuracy.measure("busy day", JournalRecorder.busyDay(1, true),
                Simulation.simulated(TimeRules.DEFAULT), 20, Forecaster.Settings.DEFAULT);

        EtaAccuracy.Scores forecast = report.methods().get(0);
        assertThat(forecast.scored()).as("tasks waited at some of the instants, in some pool").isPositive();
        assertThat(forecast.given()).as("%s", forecast).isGreaterThan(0.5);
        assertThat(forecast.inside()).isBetween(0.0, 1.0);
    }
}
