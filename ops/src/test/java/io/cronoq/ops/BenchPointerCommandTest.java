package io.cronoq.ops;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** The platform's distribution holds no benchmark: {@code cronoq bench} names where it is and runs nothing. */
class BenchPointerCommandTest {

    @Test
    void benchWithItsFlagsNamesTheLauncherAndFails() {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cli = Cronoq.commandLine();
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));

        int code = cli.execute("bench", "--drain", "2000", "--stored");

        assertThat(code).isEqualTo(CommandLine.ExitCode.SOFTWARE);
        assertThat(err.toString()).contains("module bench").contains("./cronoq bench");
        assertThat(out.toString()).isEmpty();
    }

    @Test
    void theTopHelpListsBenchAndWhereItIs() {
        StringWriter out = new StringWriter();
        CommandLine cli = Cronoq.commandLine();
        cli.setOut(new PrintWriter(out, true));

        assertThat(cli.execute("--help")).isZero();

        assertThat(out.toString()).contains("bench").contains("./cronoq bench");
    }
}
