package io.cronoq.ops.http;

import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code cronoq gangs}: submit a gang (tasks that start together or not at all) and show one. */
@Command(name = "gangs", mixinStandardHelpOptions = true,
        description = "Submit and show gangs: tasks that start together or not at all.",
        subcommands = {GangSubmitCommand.class, GangShowCommand.class},
        footer = {"", "Examples:",
            "  cronoq gangs submit --pool train --id run-7 --size 4 \\",
            "      --placement spread --same-label rack \\",
            "      --label gpu=a100 --gpu 1 --payload-file job.json",
            "  cronoq gangs show run-7"})
public final class GangsCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    /** Without a subcommand: a usage error naming them. */
    @Override
    public Integer call() {
        throw new CommandLine.ParameterException(spec.commandLine(), "cronoq gangs needs a subcommand: "
                + "`cronoq gangs submit …` or `cronoq gangs show GANG_ID`");
    }
}
