package io.cronoq.ops;

import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Unmatched;

/**
 * {@code cronoq bench} in the platform's distribution: the benchmark is a tool of its own (module {@code bench}),
 * not shipped with the platform, so this names where it is and runs nothing.
 */
@Command(name = "bench", mixinStandardHelpOptions = true,
        description = {"Measure cronoq end to end on a real broker against a Kafka Streams baseline: a tool of its "
                + "own (module bench), not part of this distribution; from the repository run ./cronoq bench "
                + "(./cronoq bench --help lists its flags)."})
final class BenchPointerCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    /** Whatever flags were meant for the benchmark: it is not here to read them. */
    @Unmatched
    List<String> benchArgs;

    @Override
    public Integer call() {
        spec.commandLine().getErr().println(spec.commandLine().getColorScheme().errorText(
                "cronoq: bench is a tool of its own (module bench), not part of this distribution; "
                        + "run it from the repository with ./cronoq bench"));
        return 1;
    }
}
