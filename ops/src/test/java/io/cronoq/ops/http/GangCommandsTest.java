package io.cronoq.ops.http;

import static org.assertj.core.api.Assertions.assertThat;

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
 * {@code cronoq gangs submit} and {@code cronoq gangs show}: what they send and show (against a stand-in gateway
 * that answers as the real one does), and how a bad flag is refused, naming it and the fix, before anything is sent.
 */
class GangCommandsTest extends StandInGatewayTest {


    /** {@code GET /v1/gangs/run-7} as the gateway answers it. */
    private static final String GANG = """
            {"id":"run-7","pool":"train","size":3,"placement":"SPREAD","sameLabel":"rack","state":"WAITING",
             "reason":"no rack has 3 free workers with gpu=a100",
             "members":[{"taskId":"run-7-0","rank":0,"state":"WAITING","workerId":null,"attempt":null},
                        {"taskId":"run-7-1","rank":1,"state":"WAITING","workerId":null,"attempt":null},
                        {"taskId":"run-7-2","rank":2,"state":null,"workerId":"w-2","attempt":2}]}""";

    {
        answer = "{\"id\":\"run-7\",\"pool\":\"train\",\"members\":[\"run-7-0\",\"run-7-1\"]}";
    }
    @Test
    void submitSendsTheGangWithTheTaskEveryMemberRunsAndPrintsItsId() throws Exception {
        Result submitted = run("gangs", "submit", "--pool", "train", "--id", "run-7", "--size", "2",
                "--placement", "SPREAD", "--same-label", "rack", "--label", "gpu=a100", "--gpu", "1",
                "--payload", "hi", "--tenant", "research", "--timeout", "2h", "--max-attempts", "2");

        assertThat(submitted.exit()).as(submitted.err()).isZero();
        assertThat(submitted.out().trim()).isEqualTo("run-7");
        assertThat(requests).singleElement().asString().startsWith("POST /v1/gangs ");
        assertThat(body(0)).isEqualTo(JSON.readTree("""
                {"pool":"train","id":"run-7","size":2,"placement":"spread","sameLabel":"rack",
                 "task":{"labels":{"gpu":"a100"},"tenant":"research","payload":"hi","resources":{"gpu":1},
                         "timeout":"PT2H","maxAttempts":2}}"""));
    }

    @Test
    void withoutTheOptionalFlagsTheGangHasOnlyItsPoolSizeAndAnEmptyTask() throws Exception {
        assertThat(run("gangs", "submit", "--pool", "train", "--size", "3").exit()).isZero();

        assertThat(body(0)).isEqualTo(JSON.readTree("{\"pool\":\"train\",\"size\":3,\"task\":{}}"));
    }

    @Test
    void membersCarryTheConcurrencyKeysAndRateLimitsTheFlagsName() throws Exception {
        Result submitted = run("gangs", "submit", "--pool", "train", "--size", "2", "--concurrency", "licence:2",
                "--rate-limit", "openai");

        assertThat(submitted.exit()).as(submitted.err()).isZero();
        assertThat(body(0).get("task").get("concurrency")).isEqualTo(JSON.readTree("[{\"key\":\"licence\",\"max\":2}]"));
        assertThat(body(0).get("task").get("rateLimits")).isEqualTo(JSON.readTree("[{\"name\":\"openai\",\"units\":1}]"));
    }

    @Test
    void theGatewaysRefusalExitsTwoNamingItsField() {
        status = 400;
        answer = "{\"error\":{\"code\":\"INVALID_ARGUMENT\",\"field\":\"id\",\"message\":\"task run-7-1 already exists "
                + "in pool train and is no member of gang run-7\"}}";

        Result refused = run("gangs", "submit", "--pool", "train", "--id", "run-7", "--size", "2");

        assertThat(refused.exit()).isEqualTo(2);
        assertThat(refused.err()).contains("id: task run-7-1 already exists in pool train");
    }

    static Stream<Arguments> badFlags() {
        return Stream.of(
                Arguments.of(new String[] {"--size", "0"}, "--size 0: a gang has 1 to 1024 members; give a size in that range"),
                Arguments.of(new String[] {"--size", "1025"}, "--size 1025: a gang has 1 to 1024 members"),
                Arguments.of(new String[] {"--size", "four"}, "--size"),
                Arguments.of(new String[] {}, "Missing required option: '--size=N'"),
                Arguments.of(new String[] {"--size", "2", "--placement", "diagonal"},
                        "--placement 'diagonal' is not one of any, spread, pack"),
                Arguments.of(new String[] {"--size", "2", "--same-label", " "},
                        "--same-label is blank: give a label key such as rack, or leave it out"),
                Arguments.of(new String[] {"--size", "2", "--same-label", "rack!"},
                        "--same-label: sameLabel is 'rack!'; it names one label key"),
                Arguments.of(new String[] {"--size", "2", "--id", "-run"}, "--id: gangId is '-run'; a gang id is a task id"),
                Arguments.of(new String[] {"--size", "2", "--start-at", "+1h"},
                        "--start-at: gangs do not take a fixed start yet"),
                Arguments.of(new String[] {"--size", "2", "--not-before", "+1h"},
                        "--not-before: gangs do not take a not-before time yet"),
                Arguments.of(new String[] {"--size", "2", "--memory", "8Gi", "--timeout", "0s"},
                        "--timeout '0s' is zero"),
                Arguments.of(new String[] {"--size", "2", "--payload", "a", "--payload-file", "x.json"},
                        "--payload and --payload-file: give one or the other"));
    }

    @ParameterizedTest(name = "{1}")
    @MethodSource("badFlags")
    void aBadFlagExitsTwoNamingItBeforeAnythingIsSent(String[] flags, String message) {
        String[] args = Stream.concat(Stream.of("gangs", "submit", "--pool", "train"), Stream.of(flags))
                .toArray(String[]::new);

        Result refused = run(args);

        assertThat(refused.exit()).as(refused.err()).isEqualTo(2);
        assertThat(refused.err()).contains(message);
        assertThat(requests).isEmpty();
    }

    @Test
    void showPrintsTheGangAndAMemberPerRow() {
        status = 200;
        answer = GANG;

        Result shown = run("gangs", "show", "run-7", "--pool", "train");

        assertThat(shown.exit()).as(shown.err()).isZero();
        assertThat(requests).containsExactly("GET /v1/gangs/run-7?pool=train ");
        assertThat(shown.out()).contains("Gang run-7 in pool train: WAITING (3 members, placement SPREAD, one value of "
                        + "rack)")
                .contains("  waiting: no rack has 3 free workers with gpu=a100")
                .containsPattern("RANK +TASK +STATE +WORKER +ATTEMPT")
                .containsPattern("0 +run-7-0 +WAITING +- +-")
                .containsPattern("2 +run-7-2 +- +w-2 +2");
    }

    @Test
    void showAsJsonPrintsTheAnswerAndAnUnknownGangExitsOne() throws Exception {
        status = 200;
        answer = GANG;
        assertThat(JSON.readTree(run("gangs", "show", "run-7", "--json").out())).isEqualTo(JSON.readTree(GANG));

        status = 404;
        answer = "{\"error\":{\"code\":\"NOT_FOUND\",\"message\":\"no gang nope\"}}";
        Result unknown = run("gangs", "show", "nope");
        assertThat(unknown.exit()).isEqualTo(1);
        assertThat(unknown.err()).contains("NOT_FOUND: no gang nope");
    }

    @Test
    void gangsWithoutASubcommandIsAUsageErrorNamingThem() {
        CommandLine cli = Cronoq.commandLine();
        StringWriter err = new StringWriter();
        cli.setErr(new PrintWriter(err, true));
        cli.setOut(new PrintWriter(new StringWriter(), true));
        Result bare = new Result(cli.execute("gangs"), "", err.toString());

        assertThat(bare.exit()).isEqualTo(2);
        assertThat(bare.err()).contains("cronoq gangs needs a subcommand").contains("submit").contains("show");
    }



}
