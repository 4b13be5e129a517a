package io.cronoq.agent.process;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** The {@code worker} command line: bad input exits 2 with a message naming the flag, before anything connects. */
class WorkerCommandTest {

    private final StringWriter err = new StringWriter();

    private int run(String... args) {
        CommandLine cli = WorkerCommand.commandLine();
        cli.setErr(new PrintWriter(err, true));
        cli.setOut(new PrintWriter(new StringWriter(), true));
        return cli.execute(args);
    }

    @Test
    void aTokenVariableThatIsUnsetExits2NamingIt() {
        CommandLine cli = WorkerCommand.commandLine(Map.of());
        cli.setErr(new PrintWriter(err, true));
        cli.setOut(new PrintWriter(new StringWriter(), true));

        assertThat(cli.execute("--pool", "p", "--token-env", "CRONOQ_GPU_TOKEN", "--", "cat")).isEqualTo(2);
        assertThat(err.toString()).contains("--token-env CRONOQ_GPU_TOKEN").contains("unset or empty");
    }

    @Test
    void aCredentialWithoutTokenEnvExits2() {
        assertThat(run("--pool", "p", "--credential", "gpu-workers", "--", "cat")).isEqualTo(2);
        assertThat(err.toString()).contains("--credential needs --token-env");
    }

    @Test
    void aMalformedLabelExits2NamingTheFlag() {
        assertThat(run("--pool", "p", "--label", "gpu", "--", "cat")).isEqualTo(2);
        assertThat(err.toString()).contains("--label 'gpu' is malformed").contains("NAME=VALUE");
    }

    @Test
    void aLabelBreakingTheLabelRuleExits2NamingTheFlag() {
        assertThat(run("--pool", "p", "--label", "gpu=A 100!", "--", "cat")).isEqualTo(2);
        assertThat(err.toString()).contains("--label").contains("label value 'A 100!' is not allowed");
    }

    @Test
    void slotsBelowOneExit2NamingTheFlag() {
        assertThat(run("--pool", "p", "--slots", "0", "--", "cat")).isEqualTo(2);
        assertThat(err.toString()).contains("--slots").contains("slots is 0");
    }

    @Test
    void anUnknownFlagExits2NamingIt() {
        assertThat(run("--pool", "p", "--colour", "blue", "--", "cat")).isEqualTo(2);
        assertThat(err.toString()).contains("Unknown option").contains("--colour");
    }

    @Test
    void aMissingCommandExits2SayingWhereItGoes() {
        assertThat(run("--pool", "p")).isEqualTo(2);
        assertThat(err.toString()).contains("missing the command to run").contains("after '--'");
    }

    @Test
    void aMissingPoolExits2NamingTheFlag() {
        assertThat(run("--", "cat")).isEqualTo(2);
        assertThat(err.toString()).contains("--pool");
    }

    @Test
    void aMemoryLimitWithAByteUnitTypoExits2NamingTheFlag() {
        assertThat(run("--pool", "p", "--memory-limit", "64MB", "--", "cat")).isEqualTo(2);
        assertThat(err.toString()).contains("--memory-limit '64MB'").contains("drop the B");
    }

    @Test
    void aTimeoutThatIsNotADurationExits2NamingTheFlag() {
        assertThat(run("--pool", "p", "--timeout", "soon", "--", "cat")).isEqualTo(2);
        assertThat(err.toString()).contains("--timeout").contains("'soon' is not a duration");
    }

    @Test
    void aBadPackageVersionExits2NamingTheFlag() {
        assertThat(run("--pool", "p", "--package", "torch=latest", "--", "cat")).isEqualTo(2);
        assertThat(err.toString()).contains("--package torch").contains("'latest' is not a version");
    }

    @Test
    void aValidCommandLineBuildsTheAgentItDescribes() {
        CommandLine cli = WorkerCommand.commandLine();
        cli.parseArgs("--pool", "inference", "--id", "agent-7", "--label", "gpu=a100", "--label", "zone=eu",
                "--slots", "3", "--cpu", "500m", "--memory", "2Gi", "--timeout", "5s",
                "--", "sh", "-c", "cat; echo done");
        WorkerCommand.Agent agent = ((WorkerCommand) cli.getCommand()).agent();
        assertThat(agent.worker().id()).isEqualTo("agent-7");
        assertThat(agent.worker().pool()).isEqualTo("inference");
        assertThat(agent.worker().labels()).containsExactlyInAnyOrderEntriesOf(
                java.util.Map.of("gpu", "a100", "zone", "eu"));
        assertThat(agent.worker().slots()).isEqualTo(3);
        agent.runner().shutdown();
    }

    @Test
    void theCommandMayFollowTheFlagsWithoutTheDoubleDash() {
        CommandLine cli = WorkerCommand.commandLine();
        cli.parseArgs("--pool", "p", "sh", "-c", "cat");
        WorkerCommand.Agent agent = ((WorkerCommand) cli.getCommand()).agent();
        assertThat(agent.worker().pool()).isEqualTo("p");
        agent.runner().shutdown();
    }

    @Test
    void aConfigFileSuppliesTheSettingsAndFlagsOverrideIt(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
            throws java.io.IOException {
        java.nio.file.Path file = dir.resolve("cronoq.toml");
        java.nio.file.Files.writeString(file, String.join("\n",
                "cronoq.bootstrap.servers = \"kafka:9092\"",
                "[worker]",
                "pool = \"inference\"",
                "slots = 4",
                "labels = { gpu = \"a100\", zone = \"eu\" }",
                ""));
        CommandLine cli = WorkerCommand.commandLine();
        cli.parseArgs("--config", file.toString(), "--slots", "2", "--id", "from-file", "--", "cat");
        WorkerCommand.Agent agent = ((WorkerCommand) cli.getCommand()).agent();
        assertThat(agent.worker().pool()).isEqualTo("inference");
        assertThat(agent.worker().labels()).containsExactlyInAnyOrderEntriesOf(
                java.util.Map.of("gpu", "a100", "zone", "eu"));
        assertThat(agent.worker().slots()).as("the flag overrides the file").isEqualTo(2);
        agent.runner().shutdown();
    }

    @Test
    void anUnknownSettingInTheConfigFileExits2NamingIt(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
            throws java.io.IOException {
        java.nio.file.Path file = dir.resolve("cronoq.toml");
        java.nio.file.Files.writeString(file, "[worker]\npool = \"p\"\nslost = 3\n");
        assertThat(run("--config", file.toString(), "--", "cat")).isEqualTo(2);
        assertThat(err.toString()).contains("slost").contains("known:");
    }

    @Test
    void anAddressNoPeerCouldDialExits2NamingTheFlagAndTheFix() {
        assertThat(run("--pool", "p", "--address", "node:70000", "--", "cat")).isEqualTo(2);
        assertThat(err.toString()).contains("--address").contains("port '70000' must be a number from 1 to 65535")
                .contains("e.g. gpu-07.example.net");
    }

    @Test
    void theAgentAdvertisesTheAddressOfTheFlagOrTheConfigFileOrElseTheHostName(
            @org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws java.io.IOException {
        java.nio.file.Path file = dir.resolve("cronoq.toml");
        java.nio.file.Files.writeString(file, "[worker]\npool = \"p\"\naddress = \"10.0.0.7:29500\"\n");

        assertThat(agentAddress("--config", file.toString(), "--", "cat")).contains("10.0.0.7:29500");
        assertThat(agentAddress("--config", file.toString(), "--address", "gpu-07", "--", "cat"))
                .as("the flag overrides the file").contains("gpu-07");
        assertThat(agentAddress("--pool", "p", "--", "cat"))
                .isEqualTo(java.util.Optional.ofNullable(hostName()));
    }

    @Test
    void aConfigFileAddressWithSpacesExits2NamingIt(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
            throws java.io.IOException {
        java.nio.file.Path file = dir.resolve("cronoq.toml");
        java.nio.file.Files.writeString(file, "[worker]\npool = \"p\"\naddress = \"gpu 07\"\n");

        assertThat(run("--config", file.toString(), "--", "cat")).isEqualTo(2);
        assertThat(err.toString()).contains("--address").contains("address is 'gpu 07'").contains("without spaces");
    }

    private static java.util.Optional<String> agentAddress(String... args) {
        CommandLine cli = WorkerCommand.commandLine();
        cli.parseArgs(args);
        WorkerCommand.Agent agent = ((WorkerCommand) cli.getCommand()).agent();
        try {
            return agent.worker().address();
        } finally {
            agent.runner().shutdown();
        }
    }

    private static String hostName() {
        try {
            return java.net.InetAddress.getLocalHost().getHostName();
        } catch (java.net.UnknownHostException e) {
            return null;
        }
    }
}
