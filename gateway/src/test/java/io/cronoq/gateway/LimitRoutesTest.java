package io.cronoq.gateway;

import static io.cronoq.gateway.TestGateway.call;
import static io.cronoq.gateway.TestGateway.callStatuses;
import static io.cronoq.gateway.TestGateway.get;
import static io.cronoq.gateway.TestGateway.ok;
import static io.cronoq.gateway.TestGateway.refused;
import static io.cronoq.gateway.TestGateway.statuses;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.cronoq.events.LimitKind;
import io.cronoq.events.LimitSet;
import io.cronoq.scheduler.auth.Credentials;
import io.cronoq.scheduler.policy.LimitsSnapshot;
import io.cronoq.scheduler.policy.LimitsSnapshot.KeyUse;
import io.cronoq.scheduler.policy.LimitsSnapshot.RateUse;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A pool's concurrency keys and rate limits, in Javalin's test server over a state in memory: {@code GET /v1/limits}
 * as JSON (every pool or one, keys capped, 404 for an unknown pool), and the admin's {@code PUT}s and {@code DELETE}
 * of a key's limit and of a rate limit — the {@code LimitSet} each writes on the submissions topic, each malformed
 * body or broken rule (or field the server sets) a 400 naming the field, a pool no worker or task named yet taking
 * its limits, and a caller that is not an admin of the pool 401/403.
 */
class LimitRoutesTest {

    private static final String JSON = "application/json";
    private static final String KEYS = "/v1/pools/ours/limits/keys";
    private static final String RATE = "/v1/pools/ours/limits/rates/openai";
    private static final String OPENAI = "/v1/pools/ours/limits/rates/openai";

    /** Pool ours: customer-42 at its admin's limit of 2 with 3 held back, then 150 keys one task each holds; two rates. */
    private static final LimitsSnapshot OURS = ours();

    private final MemoryState state = new MemoryState(TestGateway.NOW.toString())
            .limits(ViewMapper.limits(OURS, new ListCaps(ListCaps.MAX, 1)))
            .limits(ViewMapper.limits(new LimitsSnapshot("theirs", List.of(), List.of()), ListCaps.DEFAULT));
    private final RecordingCommands commands = new RecordingCommands();
    private final GatewayContext open = TestGateway.context(Credentials.none(), state, commands);
    private final GatewayContext secured = TestGateway.context(TestGateway.SECURED, state, commands);

    private static LimitsSnapshot ours() {
        List<KeyUse> keys = new ArrayList<>();
        keys.add(new KeyUse("customer-42", 2, 2, 2, 3));
        for (int i = 0; i < 150; i++) {
            keys.add(new KeyUse("customer-%03d".formatted(i), null, 1, 1, 0));
        }
        return new LimitsSnapshot("ours", keys, List.of(
                new RateUse("openai", true, 10, 20, 3.25, 4),
                new RateUse("s3", false, 0, 0, 0, 1)));
    }

    // ---- reading ------------------------------------------------------------------------------------

    @Test
    void theLimitsOfEveryPoolAreTheSchedulersAsJsonWithTheKeysCapped() {
        TestGateway.test(open, (server, client) -> {
            JsonNode all = ok(get(client, "/v1/limits", null));

            assertThat(all.path("at").asText()).isEqualTo(TestGateway.NOW.toString());
            assertThat(all.path("pools").findValuesAsText("pool")).containsExactly("ours", "theirs");
            assertThat(state.lastCaps).as("100 keys unless asked").isEqualTo(ListCaps.DEFAULT);
            JsonNode ours = all.path("pools").get(0);
            assertThat(ours.path("keysTotal").asInt()).isEqualTo(151);
            assertThat(ours.path("keysInUse").asInt()).isEqualTo(151);
            assertThat(ours.path("keysAtLimit").asInt()).as("every key's holders allow no more").isEqualTo(151);
            assertThat(ours.path("heldBackByKeys").asLong()).isEqualTo(3);
            assertThat(ours.path("heldBackByRates").asLong()).isEqualTo(5);
            assertThat(ours.path("keys")).hasSize(100);
            assertThat(ours.path("keys").get(0)).isEqualTo(Api.JSON.valueToTree(ordered(
                    "key", "customer-42", "limit", 2, "running", 2, "inForce", 2, "atLimit", true, "heldBack", 3)));
            assertThat(ours.path("keys").get(1).path("limit").isNull()).as("no admin limited it").isTrue();
            assertThat(ours.path("rates")).hasSize(2);
            assertThat(ours.path("rates").get(0)).isEqualTo(Api.JSON.valueToTree(ordered("name", "openai",
                    "defined", true, "perSecond", 10.0, "burst", 20, "available", 3.25, "heldBack", 4)));
            JsonNode undefined = ours.path("rates").get(1);
            assertThat(undefined.path("defined").asBoolean()).isFalse();
            assertThat(undefined.path("perSecond").isNull()).isTrue();
            assertThat(undefined.path("burst").isNull()).isTrue();
            assertThat(undefined.path("available").isNull()).isTrue();
            assertThat(undefined.path("heldBack").asLong()).isEqualTo(1);

            JsonNode three = ok(get(client, "/v1/limits?pool=ours&keys=3", null));
            assertThat(state.lastCaps.keys()).isEqualTo(3);
            assertThat(three.path("pools")).hasSize(1);
            assertThat(three.path("pools").get(0).path("keys").findValuesAsText("key"))
                    .containsExactly("customer-42", "customer-000", "customer-001");
            assertThat(three.path("pools").get(0).path("keysTotal").asInt()).as("all of them").isEqualTo(151);
        });
    }

    @Test
    void anUnknownPoolIs404NamingItAndABadParameter400() {
        TestGateway.test(open, (server, client) -> {
            assertThat(refused(get(client, "/v1/limits?pool=nobody", null), 404, "pool")).contains("no pool nobody");
            refused(get(client, "/v1/limits?keys=0", null), 400, "keys");
            refused(get(client, "/v1/limits?keys=10001", null), 400, "keys");
            refused(get(client, "/v1/limits?pool=-ours", null), 400, "pool");
        });
    }

    @Test
    void withTokensTheLimitsAreReadInTheCallersPools() {
        TestGateway.test(secured, (server, client) -> {
            assertThat(statuses(client, "/v1/limits?pool=ours", "none", "admin", "viewer", "submitter", "worker", "ci"))
                    .containsExactly("none=401", "admin=200", "viewer=200", "submitter=200", "worker=403", "ci=200");
            assertThat(statuses(client, "/v1/limits", "viewer", "submitter"))
                    .as("a caller restricted to pools names one").containsExactly("viewer=200", "submitter=403");
            assertThat(statuses(client, "/v1/limits?pool=theirs", "submitter")).containsExactly("submitter=403");
        });
    }

    // ---- setting --------------------------------------------------------------------------------------

    @Test
    void aKeysLimitIs202AndWrittenAsTheSchedulerReadsIt() {
        TestGateway.test(open, (server, client) -> {
            TestGateway.Answer answer = call(client, "PUT", KEYS, null, JSON, "{\"key\": \"customer-42\", \"max\": 2}");

            assertThat(answer.status()).as(answer.toString()).isEqualTo(202);
            assertThat(answer.json()).isEqualTo(Api.JSON.valueToTree(ordered("pool", "ours", "kind", "CONCURRENCY_KEY",
                    "name", "customer-42", "max", 2, "perSecond", null, "burst", null, "setBy", "gateway",
                    "setAt", TestGateway.NOW.toString())));
            LimitSet limit = commands.only(LimitSet.class);
            assertThat(limit.getPool()).isEqualTo("ours");
            assertThat(limit.getKind()).isEqualTo(LimitKind.CONCURRENCY_KEY);
            assertThat(limit.getName()).isEqualTo("customer-42");
            assertThat(limit.getMax()).isEqualTo(2);
            assertThat(limit.getPerSecond()).isNull();
            assertThat(limit.getBurst()).isNull();
            assertThat(limit.getSetBy()).as("an open gateway").isEqualTo("gateway");
            assertThat(limit.getSetAt()).as("the gateway's clock").isEqualTo(TestGateway.NOW);
        });
    }

    @Test
    void aNullMaxRemovesTheKeysLimitAndAKeyMayHoldASlash() {
        TestGateway.test(open, (server, client) -> {
            assertThat(call(client, "PUT", KEYS, null, JSON, "{\"key\":\"export/eu\",\"max\":null}").status())
                    .isEqualTo(202);

            LimitSet limit = commands.only(LimitSet.class);
            assertThat(limit.getName()).isEqualTo("export/eu");
            assertThat(limit.getMax()).as("removed").isNull();
        });
    }

    @Test
    void aRateLimitIsDefinedWithOrWithoutABurstAndRemovedByDelete() {
        TestGateway.test(open, (server, client) -> {
            TestGateway.Answer defined = call(client, "PUT", OPENAI, null, JSON, "{\"perSecond\": 10, \"burst\": 20}");
            TestGateway.Answer halfASecond = call(client, "PUT", "/v1/pools/ours/limits/rates/slow", null, JSON,
                    "{\"perSecond\": 0.5}");
            TestGateway.Answer removed = call(client, "DELETE", OPENAI, null, null, null);

            assertThat(defined.status()).as(defined.toString()).isEqualTo(202);
            assertThat(defined.json().path("kind").asText()).isEqualTo("RATE_LIMIT");
            assertThat(defined.json().path("perSecond").asDouble()).isEqualTo(10.0);
            assertThat(defined.json().path("burst").asInt()).isEqualTo(20);
            assertThat(halfASecond.status()).as(halfASecond.toString()).isEqualTo(202);
            assertThat(halfASecond.json().path("burst").isNull()).as("the scheduler's default").isTrue();
            assertThat(removed.status()).as(removed.toString()).isEqualTo(202);
            assertThat(removed.json().path("perSecond").isNull()).isTrue();
            List<LimitSet> written = commands.written(LimitSet.class);
            assertThat(written).extracting(LimitSet::getKind).containsOnly(LimitKind.RATE_LIMIT);
            assertThat(written).extracting(LimitSet::getName).containsExactly("openai", "slow", "openai");
            assertThat(written).extracting(LimitSet::getPerSecond).containsExactly(10.0, 0.5, null);
            assertThat(written).extracting(LimitSet::getBurst).containsExactly(20, null, null);
            assertThat(written).extracting(LimitSet::getMax).containsOnlyNulls();
        });
    }

    @ParameterizedTest(name = "{0} {1} {2} -> 400 on {3}")
    @CsvSource(delimiter = '|', value = {
            "PUT | " + KEYS + " | {\"max\":2}                                   | key       | key is required",
            "PUT | " + KEYS + " | {\"key\":\"\",\"max\":2}                      | key       | key is empty",
            "PUT | " + KEYS + " | {\"key\":\"two words\",\"max\":2}             | key       | none of them a space",
            "PUT | " + KEYS + " | {\"key\":42,\"max\":2}                        | key       | must be a string",
            "PUT | " + KEYS + " | {\"key\":\"a\"}                               | max       | max is required",
            "PUT | " + KEYS + " | {\"key\":\"a\",\"max\":0}                     | max       | 1 to 1000000",
            "PUT | " + KEYS + " | {\"key\":\"a\",\"max\":1000001}               | max       | 1 to 1000000",
            "PUT | " + KEYS + " | {\"key\":\"a\",\"max\":2.5}                   | max       | whole number",
            "PUT | " + KEYS + " | {\"key\":\"a\",\"max\":\"2\"}                 | max       | whole number",
            "PUT | " + KEYS + " | {\"key\":\"a\",\"max\":2,\"perSecond\":1}     | perSecond | a concurrency key's limit has key, max",
            "PUT | " + KEYS + " | [1]                                           | body      | JSON object with key and max",
            "PUT | " + KEYS + " | not json                                      | body      | not JSON",
            "PUT | /v1/pools/-ours/limits/keys | {\"key\":\"a\",\"max\":2}     | pool      | pool",
            "PUT | " + OPENAI + " | {}                                          | perSecond | perSecond is required",
            "PUT | " + OPENAI + " | {\"perSecond\":null}                        | perSecond | DELETE the rate limit",
            "PUT | " + OPENAI + " | {\"perSecond\":0}                           | perSecond | above 0",
            "PUT | " + OPENAI + " | {\"perSecond\":-1}                          | perSecond | above 0",
            "PUT | " + OPENAI + " | {\"perSecond\":1000001}                     | perSecond | at most 1000000",
            "PUT | " + OPENAI + " | {\"perSecond\":1e400}                       | perSecond | at most 1000000",
            "PUT | " + OPENAI + " | {\"perSecond\":\"10\"}                      | perSecond | must be a number",
            "PUT | " + OPENAI + " | {\"perSecond\":10,\"burst\":0}              | burst     | holds 1 to 1000000",
            "PUT | " + OPENAI + " | {\"perSecond\":10,\"burst\":1.5}            | burst     | whole number",
            "PUT | " + OPENAI + " | {\"perSecond\":10,\"max\":3}                | max       | a rate limit has perSecond, burst",
            "PUT | /v1/pools/ours/limits/rates/open%20ai | {\"perSecond\":10}    | name      | a rate limit's name is",
            "PUT | /v1/pools/ours/limits/rates/-openai | {\"perSecond\":10}     | name      | a rate limit's name is",
            "DELETE | /v1/pools/ours/limits/rates/open.ai. |                     | name      | a rate limit's name is",
            "DELETE | /v1/pools/-ours/limits/rates/openai |                       | pool      | pool"})
    void aBadBodyOrPathIs400NamingTheFieldAndWritesNothing(String method, String path, String body, String field,
                                                             String says) {
        TestGateway.test(open, (server, client) -> {
            String message = refused(call(client, method, path, null, body == null ? null : JSON, body), 400, field);

            assertThat(message).contains(says);
            assertThat(commands.written(LimitSet.class)).isEmpty();
        });
    }

    @Test
    void aRefusalOfTheKeySpeaksOfTheKeyAsTheBodyNamesIt() {
        TestGateway.test(open, (server, client) -> {
            assertThat(refused(call(client, "PUT", KEYS, null, JSON, "{\"key\":\"two words\",\"max\":2}"), 400, "key"))
                    .startsWith("key 'two words' is not allowed; a concurrency key is 1 to 200 characters");
            assertThat(refused(call(client, "PUT", KEYS, null, "text/plain", "{\"key\":\"a\",\"max\":2}"), 415,
                    "Content-Type")).isNotBlank();
            assertThat(commands.written(LimitSet.class)).isEmpty();
        });
    }

    @Test
    void aPoolNoWorkerOrTaskHasNamedYetTakesItsLimits() {
        TestGateway.test(open, (server, client) -> {
            List<TestGateway.Answer> answers = List.of(
                    call(client, "PUT", "/v1/pools/nobody/limits/keys", null, JSON, "{\"key\":\"a\",\"max\":1}"),
                    call(client, "PUT", "/v1/pools/nobody/limits/rates/openai", null, JSON, "{\"perSecond\":1}"),
                    call(client, "DELETE", "/v1/pools/nobody/limits/rates/openai", null, null, null));

            assertThat(answers).allSatisfy(a -> assertThat(a.status()).as(a.toString()).isEqualTo(202));

            assertThat(commands.written(LimitSet.class)).extracting(LimitSet::getPool, LimitSet::getName)
                    .containsExactly(org.assertj.core.groups.Tuple.tuple("nobody", "a"),
                            org.assertj.core.groups.Tuple.tuple("nobody", "openai"),
                            org.assertj.core.groups.Tuple.tuple("nobody", "openai"));
        });
    }

    @ParameterizedTest(name = "{0} {1} -> 400 on {2}")
    @CsvSource(delimiter = '|', value = {
            KEYS + " | {\"key\":\"a\",\"max\":1,\"setBy\":\"me\"} | setBy     | calling credential",
            KEYS + " | {\"key\":\"a\",\"max\":1,\"heldBack\":0}   | heldBack  | scheduler computes",
            KEYS + " | {\"key\":\"a\",\"max\":1,\"running\":2}    | running   | scheduler computes",
            KEYS + " | {\"kind\":\"RATE_LIMIT\",\"key\":\"a\"}    | kind      | which kind of limit",
            RATE + " | {\"name\":\"other\",\"perSecond\":1}      | name      | the path names",
            RATE + " | {\"perSecond\":1,\"available\":3.5}      | available | scheduler computes",
            RATE + " | {\"perSecond\":1,\"setAt\":null}         | setAt     | its clock"})
    void aFieldTheServerSetsIs400SayingWhoSetsItAndWritesNothing(String path, String body, String field, String who) {
        TestGateway.test(open, (server, client) -> {
            String message = refused(call(client, "PUT", path, null, JSON, body), 400, field);

            assertThat(message).startsWith(field + " is set by the server, not by the request: ").contains(who);
            assertThat(commands.written(LimitSet.class)).isEmpty();
        });
    }

    @Test
    void withTokensOnlyAnAdminOfThePoolSetsItsLimits() {
        TestGateway.test(secured, (server, client) -> {
            String key = "{\"key\":\"customer-42\",\"max\":2}";
            String rate = "{\"perSecond\":10}";

            assertThat(callStatuses(client, "PUT", KEYS, JSON, key, "none", "viewer", "submitter", "worker", "ci"))
                    .containsExactly("none=401", "viewer=403", "submitter=403", "worker=403", "ci=403");
            assertThat(callStatuses(client, "PUT", OPENAI, JSON, rate, "none", "viewer", "submitter", "worker", "ci"))
                    .containsExactly("none=401", "viewer=403", "submitter=403", "worker=403", "ci=403");
            assertThat(callStatuses(client, "DELETE", OPENAI, null, null, "none", "viewer", "submitter"))
                    .containsExactly("none=401", "viewer=403", "submitter=403");
            assertThat(callStatuses(client, "PUT", "/v1/pools/theirs/limits/rates/openai", JSON, rate, "keeper"))
                    .as("an admin of pool ours only").containsExactly("keeper=403");
            assertThat(refused(call(client, "PUT", KEYS, "submitter", JSON, key), 403, null))
                    .contains("'submitter'").contains("set a pool's concurrency key limits or rate limits");
            assertThat(commands.written(LimitSet.class)).isEmpty();

            assertThat(callStatuses(client, "PUT", KEYS, JSON, key, "admin", "keeper"))
                    .containsExactly("admin=202", "keeper=202");
            assertThat(callStatuses(client, "PUT", "/v1/pools/theirs/limits/rates/openai", JSON, rate, "admin"))
                    .containsExactly("admin=202");
            assertThat(callStatuses(client, "DELETE", OPENAI, null, null, "keeper")).containsExactly("keeper=202");
            assertThat(commands.written(LimitSet.class)).extracting(LimitSet::getSetBy)
                    .as("journaled as set by the caller").containsExactly("admin", "keeper", "admin", "keeper");
        });
    }

    /** A map of these keys and values in this order (nulls kept), for comparing JSON objects. */
    private static Map<String, Object> ordered(Object... pairs) {
        Map<String, Object> map = new LinkedHashMap<>();
        for (int i = 0; i < pairs.length; i += 2) {
            map.put((String) pairs[i], pairs[i + 1]);
        }
        return map;
    }
}
