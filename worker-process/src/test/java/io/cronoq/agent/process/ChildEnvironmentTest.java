package io.cronoq.agent.process;

import static org.assertj.core.api.Assertions.assertThat;

import io.cronoq.agent.CancellationSignal;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledIf;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * A task's process never sees the worker's signing secret: the agent builds each child's
 * environment instead of handing on its own. The test JVM's real environment holds a stand-in
 * secret ({@code CRONOQ_TEST_SIGNING_SECRET}, and a copy of it under another name), set by the
 * module's build, so these tests read what a child of a real agent would read.
 */
@Timeout(60)
class ChildEnvironmentTest {

    private static final String SECRET_VAR = "CRONOQ_TEST_SIGNING_SECRET";

    @TempDir
    Path dir;

    /** What {@code env} prints in a child of the agent these flags build. */
    private String childEnvironment(String... flags) throws IOException {
        CommandLine cli = WorkerCommand.commandLine();
        List<String> args = new ArrayList<>(List.of("--pool", "p", "--work-dir", dir.toString()));
        args.addAll(List.of(flags));
        args.addAll(List.of("--", "env"));
        cli.parseArgs(args.toArray(String[]::new));
        WorkerCommand command = cli.getCommand();
        WorkerCommand.Agent agent = command.agent();
        try {
            ChildProcessRunner.Outcome outcome = agent.runner().run("t1-1", List.of("env"),
                    Map.of("CRONOQ_TASK_ID", "t1"), new byte[0], null, new CancellationSignal());
            assertThat(outcome.succeeded()).isTrue();
            return new String(outcome.stdoutTail(), StandardCharsets.UTF_8);
        } finally {
            agent.runner().shutdown();
            agent.worker().close();
        }
    }

    @Test
    void theStandInSecretIsReallyInThisJvmsEnvironment() {
        assertThat(System.getenv(SECRET_VAR)).isEqualTo("s3cret-only-the-agent-may-read");
    }

    @Test
    void aTaskProcessCannotReadTheWorkersSigningSecret() throws IOException {
        String env = childEnvironment("--token-env", SECRET_VAR);

        assertThat(env).doesNotContain("s3cret-only-the-agent-may-read").doesNotContain(SECRET_VAR + "=")
                .doesNotContain("CRONOQ_TEST_SECRET_COPY=");
        assertThat(env).contains("CRONOQ_TASK_ID=t1").contains("CRONOQ_TEST_VISIBLE=yes").contains("PATH=");
    }

    @Test
    void passEnvHandsOnOnlyTheNamedVariablesAndTheBaseline() throws IOException {
        String env = childEnvironment("--token-env", SECRET_VAR, "--pass-env", "CRONOQ_TEST_VIS*");

        assertThat(env).contains("CRONOQ_TEST_VISIBLE=yes").contains("PATH=").contains("CRONOQ_TASK_ID=t1")
                .doesNotContain("CRONOQ_TEST_OTHER=").doesNotContain("s3cret-only-the-agent-may-read");
    }

    @Test
    void anAgentWithoutACredentialStillHandsOnItsEnvironment() throws IOException {
        String env = childEnvironment();

        assertThat(env).contains("CRONOQ_TEST_OTHER=other").contains("CRONOQ_TEST_VISIBLE=yes");
    }

    /** What a child of the agent these flags build reads from the agent JVM's own {@code /proc} environ. */
    private String agentEnvironAsSeenByAChild(String... flags) throws IOException {
        CommandLine cli = WorkerCommand.commandLine();
        List<String> args = new ArrayList<>(List.of("--pool", "p", "--work-dir", dir.toString()));
        args.addAll(List.of(flags));
        args.addAll(List.of("--", "sh"));
        cli.parseArgs(args.toArray(String[]::new));
        WorkerCommand.Agent agent = cli.<WorkerCommand>getCommand().agent();
        try {
            String script = "tr '\\0' '\\n' < /proc/" + ProcessHandle.current().pid() + "/environ; echo \"exit $?\"";
            ChildProcessRunner.Outcome outcome = agent.runner().run("t1-1", List.of("sh", "-c", script), Map.of(),
                    new byte[0], null, new CancellationSignal());
            return new String(outcome.stdoutTail(), StandardCharsets.UTF_8);
        } finally {
            agent.runner().shutdown();
            agent.worker().close();
        }
    }

    @Test
    @EnabledIf("rootWithSetpriv")
    void aChildRunAsAnotherUserCannotReadTheAgentsOwnEnvironment() throws IOException {
        // As the agent's own user a child can read the agent's /proc environ: the residual risk --run-as closes.
        assertThat(agentEnvironAsSeenByAChild("--token-env", SECRET_VAR)).contains("s3cret-only-the-agent-may-read");

        String asNobody = agentEnvironAsSeenByAChild("--token-env", SECRET_VAR, "--run-as", "nobody");

        assertThat(asNobody).doesNotContain("s3cret-only-the-agent-may-read").doesNotContain("exit 0");
    }

    @Test
    @EnabledIf("rootWithSetpriv")
    void aChildRunAsAnotherUserRunsAsThatUser() throws IOException {
        CommandLine cli = WorkerCommand.commandLine();
        cli.parseArgs("--pool", "p", "--work-dir", dir.toString(), "--run-as", "nobody", "--", "id");
        WorkerCommand.Agent agent = cli.<WorkerCommand>getCommand().agent();
        try {
            ChildProcessRunner.Outcome outcome = agent.runner().run("t1-1", List.of("id", "-un"), Map.of(),
                    new byte[0], null, new CancellationSignal());
            assertThat(new String(outcome.stdoutTail(), StandardCharsets.UTF_8).strip()).isEqualTo("nobody");
        } finally {
            agent.runner().shutdown();
            agent.worker().close();
        }
    }

    @Test
    void runAsAnUnknownUserExits2NamingIt() {
        StringWriter err = new StringWriter();
        CommandLine cli = WorkerCommand.commandLine();
        cli.setErr(new PrintWriter(err, true));
        cli.setOut(new PrintWriter(new StringWriter(), true));

        assertThat(cli.execute("--pool", "p", "--run-as", "no-such-user-here", "--", "env")).isEqualTo(2);
        assertThat(err.toString()).contains("--run-as no-such-user-here");
        // The reason is the first check this host fails: where the agent could switch users, the user itself.
        assertThat(err.toString()).contains(rootWithSetpriv() ? "there is no user 'no-such-user-here'"
                : MemoryCeilings.onPath("setpriv") ? "needs the agent to run as root" : "needs util-linux's setpriv");
    }

    static boolean rootWithSetpriv() {
        return "root".equals(System.getProperty("user.name")) && MemoryCeilings.onPath("setpriv");
    }

    @Test
    void passingTheSecretsOwnVariableExits2NamingIt() {
        StringWriter err = new StringWriter();
        CommandLine cli = WorkerCommand.commandLine();
        cli.setErr(new PrintWriter(err, true));
        cli.setOut(new PrintWriter(new StringWriter(), true));

        int exit = cli.execute("--pool", "p", "--token-env", SECRET_VAR, "--pass-env", "CRONOQ_TEST_*", "--", "env");

        assertThat(exit).isEqualTo(2);
        assertThat(err.toString()).contains("--pass-env CRONOQ_TEST_*").contains(SECRET_VAR)
                .contains("signing secret");
    }
}
