package io.cronoq.ops.replay;

import static org.assertj.core.api.Assertions.assertThat;

import io.cronoq.events.TaskSubmitted;
import io.cronoq.scheduler.policy.TimeRules;
import io.cronoq.scheduler.policy.forecast.Forecaster;
import io.cronoq.schemas.events.Journal;
import java.util.List;
import org.assertj.core.data.Offset;
import org.junit.jupiter.api.Test;

/**
 * The accuracy measurement: every waiting task is scored three ways. The forecast runs with a budget no
 * machine reaches, so what it gives does not depend on how busy the machine is.
 */
class EtaAccuracyTest {

    /** The default forecast but for its time budget: a minute, never reached here. */
    private static final Forecaster.Settings UNHURRIED = new Forecaster.Settings(Forecaster.Settings.DEFAULT.futures(),
            Forecaster.Settings.DEFAULT.perLine(), Forecaster.Settings.DEFAULT.maxPlacements(),
            Forecaster.Settings.DEFAULT.horizonMs(), 60_000);

    @Test
    void onADrainTheForecastIsCloseAndFarBetterThanTrustingDeclaredLimits() {
        EtaAccuracy.Report report = EtaAccuracy.measure("drain", Workloads.record(Workloads.Kind.DRAIN, 1),
                Simulation.simulated(TimeRules.DEFAULT), 5, UNHURRIED);

        assertThat(report.methods()).extracting(EtaAccuracy.Scores::method)
                .containsExactly("forecast", "position ÷ throughput", "declared limits");
        EtaAccuracy.Scores forecast = report.methods().get(0);
        assertThat(forecast.scored()).as("the tasks waiting at five instants of a 3,000-task drain").isGreaterThan(1_000);
        assertThat(forecast.given()).isEqualTo(1.0);
        assertThat(forecast.medianError()).as("%s", forecast).isLessThan(0.05);
        assertThat(forecast.inside()).as("%s", forecast).isGreaterThan(0.5);
        EtaAccuracy.Scores declared = report.methods().get(2);
        assertThat(declared.scored()).isEqualTo(forecast.scored());
        assertThat(forecast.medianError()).isLessThan(declared.medianError() / 10);
    }

    @Test
    void withTwoTenantsAndBurstsTheForecastBeatsBothNaiveEstimates() {
        EtaAccuracy.Report report = EtaAccuracy.measure("bursty-mixed", Workloads.record(Workloads.Kind.BURSTY_MIXED, 1),
                Simulation.simulated(TimeRules.DEFAULT), 5, UNHURRIED);

        EtaAccuracy.Scores forecast = report.methods().get(0);
        assertThat(forecast.longWaits()).as("tasks waited over 10 s at some instants").isPositive();
        for (EtaAccuracy.Scores naive : report.methods().subList(1, 3)) {
            assertThat(naive.scored()).isEqualTo(forecast.scored());
            assertThat(forecast.medianError()).as("forecast against %s", naive.method()).isLessThan(naive.medianError());
        }
    }

    @Test
    void variantsPooledCountEveryEstimateOnce() {
        EtaAccuracy.Report one = EtaAccuracy.measure("drain #1", Workloads.record(Workloads.Kind.DRAIN, 1),
                Simulation.simulated(TimeRules.DEFAULT), 2, UNHURRIED);
        EtaAccuracy.Report two = EtaAccuracy.measure("drain #2", Workloads.record(Workloads.Kind.DRAIN, 2),
                Simulation.simulated(TimeRules.DEFAULT), 2, UNHURRIED);

        EtaAccuracy.Report all = EtaAccuracy.Report.pooled("drain all", List.of(one, two));

        EtaAccuracy.Scores a = one.methods().get(0);
        EtaAccuracy.Scores b = two.methods().get(0);
        EtaAccuracy.Scores pooled = all.methods().get(0);
        assertThat(all.instants()).isEqualTo(4);
        assertThat(pooled.scored()).isEqualTo(a.scored() + b.scored());
        assertThat(pooled.longWaits()).isEqualTo(a.longWaits() + b.longWaits());
        assertThat(pooled.inside()).isCloseTo((a.inside() * a.scored() + b.inside() * b.scored())
                / (a.scored() + b.scored()), Offset.offset(1e-9));
        assertThat(pooled.medianError()).isBetween(Math.min(a.medianError(), b.medianError()),
                Math.max(a.medianError(), b.medianError()));
    }

    @Test
    void aWorkloadWithArrivalsIsLookedAtOnlyWhileTasksKeepArrivingAnHourLonger() {
        Workloads.Recorded steady = Workloads.record(Workloads.Kind.STEADY, 1);

        long lastSubmitted = steady.journal().stream()
                .filter(e -> e.getEvent() instanceof TaskSubmitted)
                .mapToLong(e -> Journal.heardAt(e).toEpochMilli()).max().orElseThrow();
        assertThat(steady.lookFrom()).isLessThan(steady.lookTo());
        assertThat(lastSubmitted - steady.lookTo()).isGreaterThan(3_500_000);
        assertThat(Workloads.record(Workloads.Kind.DRAIN, 1).lookTo()).as("a drain: any span will do").isNull();
    }

    @Test
    void aRecordedBusyDayOfSeveralPoolsIsMeasuredWhole() {
        EtaAccuracy.Report report = EtaAccuracy.measure("busy day", JournalRecorder.busyDay(1, true),
                Simulation.simulated(TimeRules.DEFAULT), 20, UNHURRIED);

        EtaAccuracy.Scores forecast = report.methods().get(0);
        assertThat(forecast.scored()).as("tasks waited at some of the instants, in some pool").isPositive();
        assertThat(forecast.given()).as("%s", forecast).isGreaterThan(0.5);
        assertThat(forecast.inside()).isBetween(0.0, 1.0);
    }
}
