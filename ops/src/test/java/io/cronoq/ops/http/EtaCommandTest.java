package io.cronoq.ops.http;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** {@code cronoq eta} and {@code cronoq status}'s estimate: what they ask and show (against a stand-in gateway). */
class EtaCommandTest extends StandInGatewayTest {

    /** {@code GET /v1/pools/batch/forecast} as the gateway answers it (two spans of the 24 shown). */
    private static final String FORECAST = """
            {"pool":"batch","madeAt":"2026-03-01T10:00:00Z","reached":null,"futures":19,"waiting":3,"unknown":1,
             "backlog":[
              {"from":"2026-03-01T10:00:00Z","to":"2026-03-01T10:01:00Z","starting":2,"stillWaiting":1},
              {"from":"2026-03-01T10:01:00Z","to":"2026-03-01T10:02:00Z","starting":0,"stillWaiting":1}],
             "first":[
              {"id":"t-2","position":0,"estimatedStart":{"p10":"2026-03-01T10:00:20Z","p50":"2026-03-01T10:00:30Z",
                "p90":"2026-03-01T10:00:45Z"},"estimate":"0 ahead on gpu=a100; tasks of its class ran 20s–1m lately (40 runs)"}]}""";

    @Test
    void etaShowsWhenTheBacklogClearsAndTheFirstToStart() {
        answer = FORECAST;
        status = 200;

        Result shown = run("eta", "--pool", "batch", "--limit", "5");

        assertThat(shown.exit()).as(shown.err()).isZero();
        assertThat(requests).containsExactly("GET /v1/pools/batch/forecast?limit=5 ");
        assertThat(shown.out()).contains("Pool batch: 3 waiting, forecast at 2026-03-01T10:00:00Z over 19 futures")
                .containsPattern("2026-03-01T10:00:00Z +2026-03-01T10:01:00Z +2 +1")
                .doesNotContain("2026-03-01T10:02:00Z")
                .contains("1 with no estimate")
                .containsPattern("t-2 +0 +2026-03-01T10:00:20Z +2026-03-01T10:00:30Z +2026-03-01T10:00:45Z +0 ahead");
    }

    @Test
    void aLimitOutOfRangeIsRefusedBeforeAnythingIsSent() {
        Result refused = run("eta", "--pool", "batch", "--limit", "0");

        assertThat(refused.exit()).isEqualTo(2);
        assertThat(refused.err()).contains("--limit must be from 1 to 1000, was 0");
        assertThat(requests).isEmpty();
    }

    @Test
    void statusShowsAWaitingTasksEstimatedStart() {
        answer = """
                {"id":"t-9","pool":"batch","state":"WAITING","waiting":{"reason":"all 2 slots busy",
                 "since":"2026-03-01T09:59:00Z","waitingMs":60000,"position":4,
                 "estimatedStart":{"p10":"2026-03-01T10:01:00Z","p50":"2026-03-01T10:02:00Z","p90":"2026-03-01T10:04:00Z"},
                 "estimate":"4 ahead on unlabeled workers; tasks of its class ran 30s–1m lately (12 runs)"},
                 "attempts":[]}""";
        status = 200;

        Result shown = run("status", "t-9");

        assertThat(shown.exit()).as(shown.err()).isZero();
        assertThat(shown.out()).contains("starts around 2026-03-01T10:02:00Z (p10 2026-03-01T10:01:00Z, p90 "
                + "2026-03-01T10:04:00Z), 4 ahead")
                .contains("estimate: 4 ahead on unlabeled workers; tasks of its class ran 30s–1m lately (12 runs)");
    }
}
