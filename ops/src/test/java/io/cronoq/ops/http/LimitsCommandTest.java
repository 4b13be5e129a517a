package io.cronoq.ops.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@code cronoq limits}, {@code limits key}, {@code limits rate} and {@code submit --concurrency
 * --rate-limit}: what they send and show (against a stand-in gateway that answers as the real one
 * does), and how a bad flag is refused, naming it and the fix, before anything is sent.
 */
class LimitsCommandTest extends StandInGatewayTest {


    /** {@code GET /v1/limits} as the gateway answers it. */
    private static final String LIMITS = """
            {"at":"2026-03-01T10:00:00Z","pools":[
             {"pool":"gpu","keysTotal":12,"keysInUse":3,"keysAtLimit":1,"heldBackByKeys":5,"heldBackByRates":4,
              "keys":[
               {"key":"customer-42","limit":2,"running":2,"inForce":2,"atLimit":true,"heldBack":5},
               {"key":"customer-7","limit":null,"running":1,"inForce":1,"atLimit":false,"heldBack":0}],
              "rates":[
               {"name":"openai","defined":true,"perSecond":10.0,"burst":20,"available":13.457,"heldBack":0},
               {"name":"slow-api","defined":true,"perSecond":0.25,"burst":1,"available":0.0,"heldBack":1},
               {"name":"vendor-x","defined":false,"perSecond":null,"burst":null,"available":null,"heldBack":3}]},
             {"pool":"etl","keysTotal":0,"keysInUse":0,"keysAtLimit":0,"heldBackByKeys":0,"heldBackByRates":0,
              "keys":[],"rates":[]}]}""";

    @Test
    void limitsShowsEachPoolsRateLimitsAndBusiestKeys() {
        answer = LIMITS;
        status = 200;

        Result shown = run("limits");

        assertThat(shown.exit()).as(shown.err()).isZero();
        assertThat(requests).containsExactly("GET /v1/limits ");
        assertThat(shown.out())
                .contains("Pool gpu: 3 rate limits; 12 concurrency keys, 3 in use, 1 at limit (2 listed, those "
                        + "holding back the most tasks first; --keys N lists more); held back: 5 tasks by keys, 4 by "
                        + "rate limits")
                .contains("Pool etl: no rate limits; no concurrency keys")
                .containsPattern("RATE LIMIT +PER SECOND +BURST +AVAILABLE +HELD BACK")
                .containsPattern("openai +10 +20 +13.46 +0")
                .containsPattern("slow-api +0.25 +1 +0 +1")
                .containsPattern("vendor-x +not defined +- +- +3")
                .containsPattern("KEY +LIMIT +RUNNING +IN FORCE +HELD BACK")
                .containsPattern("customer-42 +2 +2 \\(at limit\\) +2 +5")
                .containsPattern("customer-7 +- +1 +1 +0");
        assertThat(shown.out().indexOf("RATE LIMIT")).as("rate limits, then keys").isLessThan(shown.out().indexOf("KEY "));
        assertThat(shown.out().substring(shown.out().indexOf("Pool etl"))).as("no empty tables")
                .doesNotContain("RATE LIMIT", "KEY");
    }

    @Test
    void limitsOfOnePoolWithAKeyCapAsJsonAsksForThemAndPrintsTheAnswer() throws Exception {
        answer = LIMITS;
        status = 200;

        Result shown = run("limits", "--pool", "gpu", "--keys", "5", "--json");

        assertThat(shown.exit()).as(shown.err()).isZero();
        assertThat(requests).containsExactly("GET /v1/limits?pool=gpu&keys=5 ");
        assertThat(JSON.readTree(shown.out())).isEqualTo(JSON.readTree(LIMITS));
    }

    @Test
    void limitsReadsAnAnswerOfOnePoolWithoutTheWrapperAndFieldsItDoesNotKnow() {
        answer = """
                {"pool":"gpu","shard":3,"keys":[{"key":"k","running":1,"heldBack":2,"extra":true}],"rates":[]}""";
        status = 200;

        Result shown = run("limits", "--pool", "gpu");

        assertThat(shown.exit()).as(shown.err()).isZero();
        assertThat(shown.out()).contains("Pool gpu: no rate limits; 1 concurrency key; held back: 2 tasks by keys, "
                + "0 by rate limits").containsPattern("k +- +1 +- +2");
    }

    @Test
    void limitsWithNothingToShowSaysSo() {
        answer = "{\"at\":\"2026-03-01T10:00:00Z\",\"pools\":[]}";
        status = 200;

        assertThat(run("limits").out()).contains("No pool has concurrency keys or rate limits yet");
    }

    @Test
    void keySendsTheKeysLimitAndRemoveSendsANullMax() throws Exception {
        answer = "{\"pool\":\"gpu\",\"kind\":\"CONCURRENCY_KEY\",\"name\":\"customer-42\",\"max\":2}";

        Result set = run("limits", "key", "--pool", "gpu", "--key", "customer-42", "--max", "2");
        Result removed = run("limits", "key", "--pool", "gpu", "--key", "tenant:acme/1", "--remove");

        assertThat(set.exit()).as(set.err()).isZero();
        assertThat(set.out()).contains("key customer-42 of pool gpu: limit 2 (sent;");
        assertThat(removed.exit()).as(removed.err()).isZero();
        assertThat(removed.out()).contains("key tenant:acme/1 of pool gpu: limit removed");
        assertThat(requests.get(0)).startsWith("PUT /v1/pools/gpu/limits/keys ");
        assertThat(body(0)).isEqualTo(JSON.readTree("{\"key\":\"customer-42\",\"max\":2}"));
        assertThat(body(1)).isEqualTo(JSON.readTree("{\"key\":\"tenant:acme/1\",\"max\":null}"));
    }

    @Test
    void rateDefinesTheRateLimitAndRemoveDeletesIt() throws Exception {
        Result set = run("limits", "rate", "--pool", "gpu", "--name", "openai", "--per-second", "10", "--burst", "20");
        Result slow = run("limits", "rate", "--pool", "gpu", "--name", "slow-api", "--per-second", "0.5");
        Result removed = run("limits", "rate", "--pool", "gpu", "--name", "openai", "--remove");

        assertThat(set.exit()).as(set.err()).isZero();
        assertThat(set.out()).contains("rate limit openai of pool gpu: 10 per second, burst 20 (sent;");
        assertThat(slow.out()).contains("0.5 per second, burst 1 (--per-second rounded up)");
        assertThat(removed.exit()).as(removed.err()).isZero();
        assertThat(removed.out()).contains("rate limit openai of pool gpu: removed");
        assertThat(requests.get(0)).startsWith("PUT /v1/pools/gpu/limits/rates/openai ");
        assertThat(body(0)).isEqualTo(JSON.readTree("{\"perSecond\":10.0,\"burst\":20}"));
        assertThat(body(1)).isEqualTo(JSON.readTree("{\"perSecond\":0.5}"));
        assertThat(requests.get(2)).isEqualTo("DELETE /v1/pools/gpu/limits/rates/openai ");
    }

    @Test
    void theTokenOfTokenEnvIsSent() {
        String home = System.getenv("HOME");
        Assumptions.assumeTrue(home != null && !home.isBlank() && home.chars().allMatch(c -> c > 32 && c < 127));

        Result set = run("limits", "key", "--pool", "gpu", "--key", "k", "--max", "1", "--token-env", "HOME");
        Result unset = run("limits", "key", "--pool", "gpu", "--key", "k", "--max", "1", "--token-env",
                "CRONOQ_NO_SUCH_VARIABLE_FOR_TESTS");

        assertThat(set.exit()).as(set.err()).isZero();
        assertThat(requests.get(0)).endsWith("[Bearer " + home + "]");
        assertThat(unset.exit()).isEqualTo(2);
        assertThat(unset.err()).contains("--token-env CRONOQ_NO_SUCH_VARIABLE_FOR_TESTS: the variable is unset or empty");
        assertThat(requests).hasSize(1);
    }

    @Test
    void submitSendsTheKeysAndRateLimits() throws Exception {
        answer = "{\"id\":\"t-1\"}";

        Result submitted = run("submit", "--pool", "gpu", "--id", "t-1", "--concurrency", "customer-42:2",
                "--concurrency", "tenant:acme:", "--concurrency", "batch", "--rate-limit", "openai",
                "--rate-limit", "vendor.x:3");

        assertThat(submitted.exit()).as(submitted.err()).isZero();
        assertThat(submitted.out().strip()).isEqualTo("t-1");
        assertThat(body(0)).isEqualTo(JSON.readTree("""
                {"pool":"gpu","id":"t-1",
                 "concurrency":[{"key":"customer-42","max":2},{"key":"tenant:acme"},{"key":"batch"}],
                 "rateLimits":[{"name":"openai","units":1},{"name":"vendor.x","units":3}]}"""));
    }

    @Test
    void aRefusalOfTheGatewayExitsTwoNamingItsField() {
        status = 400;
        answer = "{\"error\":{\"code\":\"INVALID_ARGUMENT\",\"field\":\"perSecond\",\"message\":\"perSecond is too "
                + "fast\"}}";

        Result refused = run("limits", "rate", "--pool", "gpu", "--name", "openai", "--per-second", "5");

        assertThat(refused.exit()).isEqualTo(2);
        assertThat(refused.err()).contains("perSecond: perSecond is too fast");
    }

    @Test
    void aGatewayErrorThatIsNotTheInputsIsAFailureSayingSo() {
        status = 403;
        answer = "{\"error\":{\"code\":\"PERMISSION_DENIED\",\"message\":\"credential 'keeper' may not act in "
                + "pool 'gpu'\"}}";

        Result refused = run("limits", "key", "--pool", "gpu", "--key", "k", "--max", "1");

        assertThat(refused.exit()).isEqualTo(1);
        assertThat(refused.err()).contains("PERMISSION_DENIED: credential 'keeper' may not act in pool 'gpu'");
    }

    static Stream<Arguments> badFlags() {
        return Stream.of(
                bad("limits --keys 0", "--keys 0: list 1 to 10000 keys per pool", "--keys 20"),
                bad("limits key --pool gpu --key k", "nothing to set for key k", "--max N", "--remove"),
                bad("limits key --pool gpu --key k --max 2 --remove", "--max and --remove: give one or the other"),
                bad("limits key --pool gpu --key k --max 0", "--max is 0; a key's limit is 1 to 1000000"),
                bad("limits key --pool gpu --key k --max two", "--max", "two"),
                bad("limits key --pool gpu --key k --max 1000001", "--max is 1000001"),
                bad("limits key --pool gpu --max 2", "--key"),
                bad("limits key --key k --max 2", "--pool"),
                bad("limits key --pool g/pu --key k --max 2", "--pool 'g/pu' is not allowed", "a pool name is"),
                bad("limits rate --pool gpu --name openai", "nothing to set for rate limit openai",
                        "--per-second X [--burst B], or --remove"),
                bad("limits rate --pool gpu --name openai --burst 5", "--burst needs --per-second", "add --per-second X"),
                bad("limits rate --pool gpu --name openai --per-second 2 --remove", "--remove and --per-second",
                        "give --remove alone"),
                bad("limits rate --pool gpu --name openai --per-second 0", "--per-second is 0.0",
                        "above 0 and at most 1000000"),
                bad("limits rate --pool gpu --name openai --per-second -1", "--per-second is -1.0"),
                bad("limits rate --pool gpu --name openai --per-second 2000000", "--per-second is 2000000.0"),
                bad("limits rate --pool gpu --name openai --per-second NaN", "--per-second is NaN"),
                bad("limits rate --pool gpu --name openai --per-second fast", "--per-second", "fast"),
                bad("limits rate --pool gpu --name openai --per-second 2 --burst 0", "--burst is 0",
                        "leave it out for its refill per second"),
                bad("limits rate --pool gpu --name open/ai --per-second 2", "--name 'open/ai' is not allowed",
                        "a rate limit's name is"),
                bad("limits rate --pool gpu --name open/ai --remove", "--name 'open/ai' is not allowed"),
                bad("submit --pool gpu --concurrency customer-42:two", "--concurrency 'customer-42:two': MAX 'two' is "
                        + "not a whole number; write KEY[:MAX]", "tenant:acme:"),
                bad("submit --pool gpu --concurrency customer-42:0", "--concurrency 'customer-42:0': max is 0",
                        "a key's limit is 1 to 1000000"),
                bad("submit --pool gpu --concurrency :2", "--concurrency ':2': key is empty",
                        "a concurrency key is 1 to 200 characters"),
                bad("submit --pool gpu --concurrency a --concurrency a:3", "--concurrency 'a:3': it names the key 'a' "
                        + "again; name each key once"),
                bad("submit --pool gpu --rate-limit openai:0", "--rate-limit 'openai:0': units is 0",
                        "1 to 1000000 units"),
                bad("submit --pool gpu --rate-limit openai:lots", "--rate-limit 'openai:lots': UNITS 'lots' is not a "
                        + "whole number; write NAME[:UNITS]"),
                bad("submit --pool gpu --rate-limit open/ai", "--rate-limit 'open/ai': name 'open/ai' is not allowed",
                        "a rate limit's name is"),
                bad("submit --pool gpu --rate-limit x --rate-limit x:2", "--rate-limit 'x:2': it names the rate limit "
                        + "'x' again"),
                bad("submit --pool gpu" + keys(17), "--concurrency: 17 concurrency keys; "
                        + "a task names at most 16; give fewer --concurrency"));
    }

    /** {@code --concurrency k0 ... --concurrency k<n-1>}. */
    private static String keys(int n) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < n; i++) {
            out.append(" --concurrency k").append(i);
        }
        return out.toString();
    }

    private static Arguments bad(String args, String... says) {
        return Arguments.of(args, says);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badFlags")
    void aBadFlagExitsTwoNamingItBeforeAnythingIsSent(String args, String[] says) {
        Result refused = run(args.split(" "));

        assertThat(refused.exit()).as(refused.err()).isEqualTo(2);
        assertThat(refused.err()).contains(says);
        assertThat(requests).isEmpty();
    }

    @Test
    void helpShowsTheSubcommandsFlagsAndForms() {
        assertThat(run("limits", "--help").out()).contains("key", "rate", "--pool", "--keys", "--json", "Examples:");
        assertThat(run("limits", "key", "--help").out()).contains("--key", "--max", "--remove", "--token-env");
        assertThat(run("limits", "rate", "--help").out()).contains("--name", "--per-second", "--burst", "--remove");
        assertThat(run("submit", "--help").out()).contains("--concurrency", "KEY[:MAX]", "--rate-limit", "NAME[:UNITS]");
        assertThat(run("--help").out()).contains("limits");
    }



}
