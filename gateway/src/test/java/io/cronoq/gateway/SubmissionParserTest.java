package io.cronoq.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cronoq.events.ConcurrencyKey;
import io.cronoq.events.Priority;
import io.cronoq.events.RateLimitUse;
import io.cronoq.events.RetryPolicy;
import io.cronoq.events.TaskSubmitted;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The JSON body of a submission becomes exactly the event the scheduler reads. */
class SubmissionParserTest {

    private static final Instant NOW = Instant.parse("2026-03-01T10:00:00Z");
    private final SubmissionParser parser = new SubmissionParser(() -> NOW);

    @Test
    void everyFieldOfTheBodyLandsInTheEvent() {
        TaskSubmitted task = parser.parse("""
                {"pool":"inference","id":"t-1","labels":{"gpu":"a100"},"payloadBase64":"AAEC",
                 "resources":{"cpu":0.5,"memory":"8Gi","disk":"10G","gpu":1,"packages":["numpy>=1.26"]},
                 "priority":"critical","deadline":"2026-03-02T00:00:00Z","notBefore":"2026-03-01T11:00:00Z",
                 "startAt":"2026-03-01T12:00:00Z","tolerance":"PT5M","timeout":"PT1H","maxAttempts":4,
                 "backoff":"PT10S","maxBackoff":"PT5M",
                 "prefer":[{"labels":{"zone":"eu"}}]}""");

        assertThat(task.getTaskId()).isEqualTo("t-1");
        assertThat(task.getPool()).isEqualTo("inference");
        assertThat(task.getLabels()).isEqualTo(Map.of("gpu", "a100"));
        assertThat(task.getPayload().remaining()).isEqualTo(3);
        assertThat(task.getResources().getCpuMillis()).isEqualTo(500);
        assertThat(task.getResources().getMemoryBytes()).isEqualTo(8L << 30);
        assertThat(task.getResources().getDiskBytes()).isEqualTo(10_000_000_000L);
        assertThat(task.getResources().getGpu()).isEqualTo(1);
        assertThat(task.getResources().getPackages()).containsExactly("numpy>=1.26");
        assertThat(task.getPriority()).isEqualTo(Priority.CRITICAL);
        assertThat(task.getDeadline()).isEqualTo(Instant.parse("2026-03-02T00:00:00Z"));
        assertThat(task.getStartToleranceMs()).isEqualTo(300_000L);
        assertThat(task.getTimeoutMs()).isEqualTo(3_600_000L);
        assertThat(task.getNotBefore()).isEqualTo(Instant.parse("2026-03-01T11:00:00Z"));
        assertThat(task.getStartAt()).isEqualTo(Instant.parse("2026-03-01T12:00:00Z"));
        assertThat(task.getRetry().getMaxAttempts()).isEqualTo(4);
        assertThat(task.getRetry().getInitialBackoffMs()).isEqualTo(10_000L);
        assertThat(task.getRetry().getMaxBackoffMs()).isEqualTo(300_000L);
        assertThat(task.getPreferences().get(0).getWeight()).as("weight defaults to 1").isEqualTo(1);
        assertThat(task.getSubmittedAt()).isEqualTo(NOW);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "state        | \"WAITING\"                | the scheduler keeps",
            "submittedAt  | \"2026-03-01T09:00:00Z\"   | the gateway stamps it with its clock",
            "updatedAt    | null                       | the scheduler stamps it",
            "payloadBytes | 5                          | the gateway counts the bytes",
            "waiting      | {\"reason\":\"busy\"}      | the scheduler says why",
            "attempts     | []                         | the scheduler records each attempt",
            "gang         | {\"id\":\"g\",\"rank\":0}    | the scheduler sets it on each member of a gang"})
    void aFieldTheServerSetsIsRefusedSayingWhoSetsIt(String field, String value, String who) {
        assertThatThrownBy(() -> parser.parse("{\"pool\":\"p\",\"" + field + "\":" + value + "}"))
                .isInstanceOfSatisfying(ApiException.class, e -> {
                    assertThat(e.field()).isEqualTo(field);
                    assertThat(e.getMessage()).startsWith(field + " is set by the server, not by the request: ")
                            .contains(who).endsWith("; leave it out");
                });
    }

    @Test
    void theSubmitterIsTheBodysOnAnOpenGatewayAndTheServersWithTokens() {
        String body = "{\"pool\":\"p\",\"submitter\":\"admin\"}";

        assertThat(parser.parse(body).getSubmitter()).as("an open gateway keeps it").isEqualTo("admin");
        assertThatThrownBy(() -> parser.parse(body.getBytes(StandardCharsets.UTF_8), "ci"))
                .isInstanceOfSatisfying(ApiException.class, e -> {
                    assertThat(e.field()).isEqualTo("submitter");
                    assertThat(e.getMessage()).isEqualTo("submitter is set by the server, not by the request: "
                            + "with tokens configured the gateway takes it from the calling credential ('ci'); "
                            + "leave it out");
                });
        assertThat(parser.parse("{\"pool\":\"p\"}".getBytes(StandardCharsets.UTF_8), "ci").getSubmitter())
                .as("the route stamps it").isNull();
    }

    @Test
    void aMinimalBodyGetsAnIdAnEmptyPayloadAndNormalPriority() {
        TaskSubmitted task = parser.parse("{\"pool\":\"p\",\"payload\":\"héllo\"}");

        assertThat(task.getTaskId()).isNotBlank();
        assertThat(StandardCharsets.UTF_8.decode(task.getPayload()).toString()).isEqualTo("héllo");
        assertThat(task.getPriority()).isEqualTo(Priority.NORMAL);
        assertThat(task.getResources()).isNull();
    }

    @Test
    void aRetryPolicyComesOnlyWithARetryFieldAndTakesTheDefaultsForTheOthers() {
        assertThat(parser.parse("{\"pool\":\"p\"}").getRetry()).as("the scheduler's default").isNull();

        RetryPolicy onlyAttempts = parser.parse("{\"pool\":\"p\",\"maxAttempts\":5}").getRetry();
        assertThat(onlyAttempts.getMaxAttempts()).isEqualTo(5);
        assertThat(onlyAttempts.getInitialBackoffMs()).isEqualTo(1_000L);
        assertThat(onlyAttempts.getMaxBackoffMs()).isEqualTo(60_000L);

        RetryPolicy longFirstWait = parser.parse("{\"pool\":\"p\",\"backoff\":\"PT10M\"}").getRetry();
        assertThat(longFirstWait.getMaxAttempts()).isEqualTo(3);
        assertThat(longFirstWait.getInitialBackoffMs()).isEqualTo(600_000L);
        assertThat(longFirstWait.getMaxBackoffMs()).as("the default cap rises to the first wait").isEqualTo(600_000L);
    }

    @Test
    void aBadBackoffIsRefusedNamingTheBodyField() {
        assertThatThrownBy(() -> parser.parse("{\"pool\":\"p\",\"backoff\":\"10s\"}"))
                .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.field()).isEqualTo("backoff"));
        assertThatThrownBy(() -> parser.parse("{\"pool\":\"p\",\"backoff\":\"PT1M\",\"maxBackoff\":\"PT10S\"}"))
                .isInstanceOfSatisfying(ApiException.class, e -> {
                    assertThat(e.field()).isEqualTo("maxBackoff");
                    assertThat(e.getMessage()).contains("at least the first backoff");
                });
        assertThatThrownBy(() -> parser.parse("{\"pool\":\"p\",\"backoff\":\"PT-1S\"}"))
                .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.field()).isEqualTo("backoff"));
    }

    @Test
    void theSharedRulesRefuseWithTheFieldAsTheBodySpellsIt() {
        assertThatThrownBy(() -> parser.parse("{\"pool\":\"p\",\"timeout\":\"PT0S\"}"))
                .isInstanceOfSatisfying(ApiException.class, e -> {
                    assertThat(e.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT);
                    assertThat(e.field()).isEqualTo("timeout");
                });
        assertThat(SubmissionParser.bodyName("preferences[2].labels.zone")).isEqualTo("prefer[2].labels.zone");
        assertThat(SubmissionParser.bodyName("resources.memoryBytes")).isEqualTo("resources.memory");
        assertThat(SubmissionParser.bodyName("labels.gpu")).isEqualTo("labels.gpu");
    }

    @Test
    void aQuantityAsAJsonNumberIsReadExactlyAndOneNoQuantityCanBeIsRefused() {
        assertThat(parser.parse("{\"pool\":\"p\",\"resources\":{\"cpu\":2.5,\"memory\":1048576}}").getResources())
                .satisfies(r -> {
                    assertThat(r.getCpuMillis()).isEqualTo(2_500L);
                    assertThat(r.getMemoryBytes()).isEqualTo(1L << 20);
                });
        for (String number : new String[] {"1e400", "1e19", "0.0000000001", "1e-400"}) {
            assertThatThrownBy(() -> parser.parse("{\"pool\":\"p\",\"resources\":{\"memory\":" + number + "}}"))
                    .as(number)
                    .isInstanceOfSatisfying(ApiException.class, e -> {
                        assertThat(e.field()).isEqualTo("resources.memory");
                        assertThat(e.getMessage()).contains("as a string");
                    });
        }
    }

    @Test
    void theBodyIsOneJsonObjectOfUtf8() {
        assertThatThrownBy(() -> parser.parse("{\"pool\":\"a\"} {\"pool\":\"b\"}"))
                .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.field()).isEqualTo("body"));
        assertThatThrownBy(() -> parser.parse("{\"pool\":\"a\"} x"))
                .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.field()).isEqualTo("body"));
        byte[] latin1 = "{\"pool\":\"p\",\"prefer\":[{\"labels\":{\"zone\":\"\u00e9\"}}]}"
                .getBytes(StandardCharsets.ISO_8859_1);
        assertThatThrownBy(() -> parser.parse(latin1))
                .isInstanceOfSatisfying(ApiException.class, e -> {
                    assertThat(e.field()).isEqualTo("prefer[0].labels.zone");
                    assertThat(e.getMessage()).contains("UTF-8");
                });
    }

    @Test
    void aTenantInTheBodyLandsInTheEventAndNoneLeavesItToTheDefault() {
        assertThat(parser.parse("{\"pool\":\"p\",\"tenant\":\"research\"}").getTenant()).isEqualTo("research");
        assertThat(parser.parse("{\"pool\":\"p\",\"tenant\":\"team.a_1-b\"}").getTenant()).isEqualTo("team.a_1-b");
        assertThat(parser.parse("{\"pool\":\"p\"}").getTenant()).as("the tenant default (or the token's)").isNull();
        assertThat(parser.parse("{\"pool\":\"p\",\"tenant\":null}").getTenant()).isNull();
    }

    @ParameterizedTest(name = "tenant {0} is refused")
    @ValueSource(strings = {"\"\"", "\"two words\"", "\"-research\"", "\"research.\"", "\"caf\u00e9\"", "7",
            "[\"research\"]", "\"x123456789x123456789x123456789x123456789x123456789x123456789xyzw\""})
    void aTenantThatIsNoTenantNameIsRefusedNamingTheField(String tenant) {
        assertThatThrownBy(() -> parser.parse("{\"pool\":\"p\",\"tenant\":" + tenant + "}"))
                .isInstanceOfSatisfying(ApiException.class, e -> {
                    assertThat(e.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT);
                    assertThat(e.field()).isEqualTo("tenant");
                    assertThat(e.getMessage()).contains("tenant");
                });
    }

    @Test
    void aSubmitterInTheBodyLandsInTheEventAndIsBounded() {
        assertThat(parser.parse("{\"pool\":\"p\",\"submitter\":\"ci-nightly\"}").getSubmitter()).isEqualTo("ci-nightly");
        assertThat(parser.parse("{\"pool\":\"p\"}").getSubmitter()).isNull();
        assertThatThrownBy(() -> parser.parse("{\"pool\":\"p\",\"submitter\":\"" + "x".repeat(256) + "\"}"))
                .isInstanceOfSatisfying(ApiException.class, e -> {
                    assertThat(e.field()).isEqualTo("submitter");
                    assertThat(e.getMessage()).contains("at most 255");
                });
    }

    @Test
    void concurrencyKeysAndRateLimitsLandInTheEventWithTheirDefaults() {
        TaskSubmitted task = parser.parse("""
                {"pool":"p","concurrency":[{"key":"customer-42","max":2},{"key":"export/eu"}],
                 "rateLimits":[{"name":"openai","units":3},{"name":"s3"}]}""");

        assertThat(task.getConcurrency()).containsExactly(new ConcurrencyKey("customer-42", 2),
                new ConcurrencyKey("export/eu", null));
        assertThat(task.getRateLimits()).as("units 1 when left out")
                .containsExactly(new RateLimitUse("openai", 3), new RateLimitUse("s3", 1));
        TaskSubmitted plain = parser.parse("{\"pool\":\"p\",\"concurrency\":null,\"rateLimits\":[]}");
        assertThat(plain.getConcurrency()).isEmpty();
        assertThat(plain.getRateLimits()).isEmpty();
    }

    @ParameterizedTest(name = "{0} -> 400 on {1}")
    @CsvSource(delimiter = '|', value = {
            "\"concurrency\":{\"key\":\"a\"}                        | concurrency         | must be a list",
            "\"concurrency\":[\"customer-42\"]                        | concurrency[0]      | must be an object",
            "\"concurrency\":[{\"max\":2}]                            | concurrency[0].key  | is empty",
            "\"concurrency\":[{\"key\":\"\"}]                       | concurrency[0].key  | is empty",
            "\"concurrency\":[{\"key\":\"two words\"}]              | concurrency[0].key  | none of them a space",
            "\"concurrency\":[{\"key\":7}]                            | concurrency[0].key  | must be a string",
            "\"concurrency\":[{\"key\":\"a\"},{\"key\":\"a\"}]  | concurrency[1].key  | name each key once",
            "\"concurrency\":[{\"key\":\"a\",\"max\":0}]          | concurrency[0].max  | 1 to 1000000",
            "\"concurrency\":[{\"key\":\"a\",\"max\":1.5}]        | concurrency[0].max  | whole number",
            "\"concurrency\":[{\"key\":\"a\",\"limit\":2}]        | concurrency[0].limit | concurrency[0] has key, max",
            "\"rateLimits\":\"openai\"                                | rateLimits          | must be a list",
            "\"rateLimits\":[{\"units\":2}]                           | rateLimits[0].name  | is empty",
            "\"rateLimits\":[{\"name\":\"open ai\"}]                | rateLimits[0].name  | a rate limit's name is",
            "\"rateLimits\":[{\"name\":\"a\"},{\"name\":\"b\",\"units\":0}] | rateLimits[1].units | 1 to 1000000 units",
            "\"rateLimits\":[{\"name\":\"a\",\"units\":\"2\"}]  | rateLimits[0].units | whole number",
            "\"rateLimits\":[{\"name\":\"a\"},{\"name\":\"a\"}] | rateLimits[1].name  | name each rate limit once",
            "\"rateLimits\":[{\"name\":\"a\",\"per\":1}]          | rateLimits[0].per   | rateLimits[0] has name, units"})
    void aMalformedLimitIsRefusedNamingItsFieldWithTheRulesWords(String fields, String field, String says) {
        assertThatThrownBy(() -> parser.parse("{\"pool\":\"p\"," + fields + "}"))
                .isInstanceOfSatisfying(ApiException.class, e -> {
                    assertThat(e.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT);
                    assertThat(e.field()).isEqualTo(field);
                    assertThat(e.getMessage()).contains(says);
                });
    }

    @Test
    void aTaskNamesAtMostSixteenKeys() {
        StringBuilder keys = new StringBuilder();
        for (int i = 0; i < 17; i++) {
            keys.append(i == 0 ? "" : ",").append("{\"key\":\"k").append(i).append("\"}");
        }
        assertThatThrownBy(() -> parser.parse("{\"pool\":\"p\",\"concurrency\":[" + keys + "]}"))
                .isInstanceOfSatisfying(ApiException.class, e -> {
                    assertThat(e.field()).isEqualTo("concurrency");
                    assertThat(e.getMessage()).contains("at most 16");
                });
    }
}
