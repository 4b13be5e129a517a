package io.cronoq.agent.process;

/**
 * Runs the {@code worker} agent as a program: {@code java -cp ... io.cronoq.agent.process.AgentMain --pool p -- cmd}.
 * The only place the agent calls {@code System.exit}. Logs go to stderr through {@code cronoq-agent-logback.xml}
 * unless {@code -Dlogback.configurationFile} names another file.
 */
public final class AgentMain {

    private AgentMain() {
    }

    public static void main(String[] args) {
        if (System.getProperty("logback.configurationFile") == null
                && AgentMain.class.getResource("/cronoq-agent-logback.xml") != null) {
            System.setProperty("logback.configurationFile", "cronoq-agent-logback.xml");
        }
        System.exit(WorkerCommand.commandLine().execute(args));
    }
}
