package io.cronoq.ops.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.cronoq.kafka.LocalKafka;
import io.cronoq.ops.Cronoq;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import picocli.CommandLine;

/**
 * {@code cronoq tenants}, {@code tenants set}, {@code tenants preemption} and {@code submit --tenant}:
 * what they send and show (against a stand-in gateway that answers as the real one does), and how a
 * bad flag is refused before anything is sent.
 */
class TenantsCommandTest extends StandInGatewayTest {


    /** {@code GET /v1/tenants} as the gateway answers it. */
    private static final String TENANTS = """
            {"at":"2026-03-01T10:00:00Z","pools":[
             {"pool":"gpu","preemption":true,"preemptionGraceMs":30000,"slots":24,"gpus":8,"tenants":[
              {"tenant":"default","weight":1.0,"slotsInUse":4,"gpusInUse":0,"fairShare":6.0,"dominantShare":0.167,
               "waiting":0,"oldestWaitingSince":null,"oldestWaitingMs":null,"quotas":[]},
              {"tenant":"research","weight":3.0,"slotsInUse":12,"gpusInUse":2,"fairShare":18.0,"dominantShare":0.167,
               "waiting":5,"oldestWaitingSince":"2026-03-01T09:57:55Z","oldestWaitingMs":125000,"quotas":[
                {"labels":{"gpu":"a100"},"scope":"gpu=a100","guaranteed":4,"max":16,"inUse":3},
                {"labels":{},"scope":"pool","guaranteed":2,"max":null,"inUse":12}]}]},
             {"pool":"etl","preemption":false,"preemptionGraceMs":30000,"slots":3,"gpus":0,"tenants":[
              {"tenant":"default","weight":1.5,"slotsInUse":1,"gpusInUse":0,"fairShare":3.0,"dominantShare":0.222,
               "waiting":2,"oldestWaitingSince":"2026-03-01T09:59:30Z","quotas":[]}]}]}""";

    @Test
    void tenantsShowsATablePerPool() {
        answer = TENANTS;
        status = 200;

        Result shown = run("tenants");

        assertThat(shown.exit()).as(shown.err()).isZero();
        assertThat(requests).containsExactly("GET /v1/tenants ");
        assertThat(shown.out()).contains("Pool gpu: 24 slots, 8 GPUs; preemption on (after 30s below a guarantee)")
                .contains("Pool etl: 3 slots, 0 GPUs; preemption off")
                .containsPattern("TENANT +WEIGHT +IN USE +FAIR SHARE +QUOTAS +WAITING +OLDEST WAIT")
                .containsPattern("research +3 +12, 2 GPUs +18 +gpu=a100 4/16 \\(3 in use\\); pool 2/- \\(12 in use\\) +5 +2m5s")
                .containsPattern("default +1 +4 +6 +- +0 +-")
                .containsPattern("default +1.5 +1 +3 +- +2 +\\S+");
    }

    @Test
    void tenantsOfOnePoolAsJsonAsksForThePoolAndPrintsTheAnswer() throws Exception {
        answer = TENANTS;
        status = 200;

        Result shown = run("tenants", "--pool", "gpu", "--json");

        assertThat(shown.exit()).isZero();
        assertThat(requests).containsExactly("GET /v1/tenants?pool=gpu ");
        assertThat(JSON.readTree(shown.out())).isEqualTo(JSON.readTree(TENANTS));
    }

    @Test
    void setSendsTheTenantsWeightAndQuotas() throws Exception {
        answer = "{\"pool\":\"gpu\",\"tenant\":\"research\",\"setBy\":\"gateway\",\"setAt\":\"2026-03-01T10:00:00Z\"}";

        Result set = run("tenants", "set", "--pool", "gpu", "--tenant", "research", "--weight", "3",
                "--quota", "gpu=a100:guaranteed=4:max=16", "--quota", "pool:max=20");

        assertThat(set.exit()).as(set.err()).isZero();
        assertThat(set.out()).contains("tenant research of pool gpu: weight 3; quotas gpu=a100 4/16, pool 0/20");
        assertThat(requests).singleElement().asString().startsWith("PUT /v1/pools/gpu/tenants/research ");
        JsonNode body = JSON.readTree(requests.get(0).substring(requests.get(0).indexOf('{')));
        assertThat(body).isEqualTo(JSON.readTree("""
                {"weight":3.0,"quotas":[{"labels":{"gpu":"a100"},"guaranteed":4,"max":16},
                                        {"labels":{},"guaranteed":0,"max":20}]}"""));
    }

    @Test
    void noQuotasSendsAnEmptyListAndAWeightAloneSendsNoQuotas() throws Exception {
        assertThat(run("tenants", "set", "--pool", "gpu", "--tenant", "research", "--no-quotas").exit()).isZero();
        assertThat(run("tenants", "set", "--pool", "gpu", "--tenant", "research", "--weight", "0.5").exit()).isZero();

        assertThat(JSON.readTree(requests.get(0).substring(requests.get(0).indexOf('{'))))
                .isEqualTo(JSON.readTree("{\"quotas\":[]}"));
        assertThat(JSON.readTree(requests.get(1).substring(requests.get(1).indexOf('{'))))
                .isEqualTo(JSON.readTree("{\"weight\":0.5}"));
    }

    @Test
    void preemptionSendsThePoolsSwitchAndGrace() throws Exception {
        Result off = run("tenants", "preemption", "--pool", "gpu", "--off", "--grace", "1m");
        Result grace = run("tenants", "preemption", "--pool", "gpu", "--grace", "PT45S");

        assertThat(off.exit()).as(off.err()).isZero();
        assertThat(off.out()).contains("pool gpu: preemption off; grace 1m (set)");
        assertThat(grace.exit()).isZero();
        assertThat(requests.get(0)).startsWith("PUT /v1/pools/gpu/sharing ");
        assertThat(JSON.readTree(requests.get(0).substring(requests.get(0).indexOf('{'))))
                .isEqualTo(JSON.readTree("{\"preemption\":false,\"preemptionGraceMs\":60000}"));
        assertThat(JSON.readTree(requests.get(1).substring(requests.get(1).indexOf('{'))))
                .isEqualTo(JSON.readTree("{\"preemptionGraceMs\":45000}"));
    }

    @Test
    void submitSendsTheTenant() throws Exception {
        answer = "{\"id\":\"t-1\"}";

        Result submitted = run("submit", "--pool", "gpu", "--tenant", "research", "--id", "t-1");

        assertThat(submitted.exit()).as(submitted.err()).isZero();
        assertThat(JSON.readTree(requests.get(0).substring(requests.get(0).indexOf('{'))))
                .isEqualTo(JSON.readTree("{\"pool\":\"gpu\",\"id\":\"t-1\",\"tenant\":\"research\"}"));
    }

    @Test
    void aRefusalOfTheGatewayExitsTwoNamingItsField() {
        status = 400;
        answer = "{\"error\":{\"code\":\"INVALID_ARGUMENT\",\"field\":\"pool\",\"message\":\"no such pool\"}}";

        Result refused = run("tenants", "set", "--pool", "gpu", "--tenant", "research", "--weight", "2");

        assertThat(refused.exit()).isEqualTo(2);
        assertThat(refused.err()).contains("pool: no such pool");
    }

    static Stream<Arguments> badFlags() {
        return Stream.of(
                bad("tenants set --tenant research --weight 2", "--pool"),
                bad("tenants set --pool gpu --weight 2", "--tenant"),
                bad("tenants set --pool gpu --tenant research", "nothing to set for tenant research", "--no-quotas"),
                bad("tenants set --pool gpu --tenant research --weight 0", "--weight: weight is 0.0", "above 0"),
                bad("tenants set --pool gpu --tenant research --weight 5000", "--weight: weight is 5000.0", "at most 1000"),
                bad("tenants set --pool gpu --tenant research --weight heavy", "--weight", "heavy"),
                bad("tenants set --pool gpu --tenant ml_team! --weight 2", "--tenant: tenant 'ml_team!' is not allowed",
                        "a tenant name is"),
                bad("tenants set --pool a/b --tenant research --weight 2", "--pool: pool 'a/b'", "a pool name is"),
                bad("tenants set --pool gpu --tenant research --quota gpu=a100", "--quota 'gpu=a100' is not",
                        "SCOPE:guaranteed=N[:max=M]"),
                bad("tenants set --pool gpu --tenant research --quota gpu=a100:guaranteed=four",
                        "--quota 'gpu=a100:guaranteed=four': guaranteed 'four' is not a whole number", "guaranteed=4"),
                bad("tenants set --pool gpu --tenant research --quota gpu=a100:guaranteed=20:max=16",
                        "--quota 'gpu=a100:guaranteed=20:max=16': guaranteed is 20, above its max 16",
                        "cannot be guaranteed more"),
                bad("tenants set --pool gpu --tenant research --quota gpu=a100:guaranteed=-1",
                        "--quota 'gpu=a100:guaranteed=-1': guaranteed is -1", "0 or more"),
                bad("tenants set --pool gpu --tenant research --quota gpu=a100:guaranteed=2 --quota gpu=a100:max=3",
                        "--quota 'gpu=a100:max=3': it repeats the scope gpu=a100", "one quota"),
                bad("tenants set --pool gpu --tenant research --quota gpu:guaranteed=2", "--quota 'gpu:guaranteed=2'",
                        "not name=value"),
                bad("tenants set --pool gpu --tenant research --quota gpu=a100:min=2", "--quota", "'min=2' is not"),
                bad("tenants set --pool gpu --tenant research --quota gpu=a100", "--quota", "pool (the whole pool)"),
                bad("tenants set --pool gpu --tenant research --quota pool:max=2 --no-quotas", "--quota and --no-quotas",
                        "one or the other"),
                bad("tenants preemption --pool gpu", "nothing to set for pool gpu", "--on or --off"),
                bad("tenants preemption --pool gpu --on --off", "--on and --off", "one or the other"),
                bad("tenants preemption --pool gpu --grace soon", "--grace 'soon' is not a duration", "5s, 2m"),
                bad("tenants preemption --pool gpu --grace PT-5S", "--grace 'PT-5S' is negative", "0 or more"),
                bad("tenants preemption --on", "--pool"),
                bad("submit --pool gpu --tenant ml/team", "--tenant: tenant 'ml/team' is not allowed",
                        "a tenant name is"));
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
    void aGatewayThatCannotBeReachedExitsOne() {
        Result unreachable = runAt("http://127.0.0.1:" + LocalKafka.freePort(), "tenants");

        assertThat(unreachable.exit()).isEqualTo(1);
        assertThat(unreachable.err()).contains("cannot reach the gateway");
    }

    @Test
    void helpShowsTheSubcommandsFlagsAndForms() {
        assertThat(run("tenants", "--help").out()).contains("set", "preemption", "--pool", "--json", "Examples:");
        assertThat(run("tenants", "set", "--help").out()).contains("--weight", "--quota", "--no-quotas",
                "SCOPE:guaranteed=N[:max=M]", "pool (the whole pool)");
        assertThat(run("tenants", "preemption", "--help").out()).contains("--on", "--off", "--grace", "DURATION");
        assertThat(run("submit", "--help").out()).contains("--tenant");
    }



    private static Result runAt(String url, String... args) {
        CommandLine cli = Cronoq.commandLine();
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        String[] withUrl = Stream.concat(Stream.of(args), Stream.of("--url", url)).toArray(String[]::new);
        return new Result(cli.execute(withUrl), out.toString(), err.toString());
    }
}
