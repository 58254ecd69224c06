package io.jtrace.agent;

import java.lang.instrument.Instrumentation;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code -javaagent} entry points ({@code Premain-Class} and {@code Agent-Class}). Nothing here may
 * throw into the host JVM: a bad option is logged and tracing stays off; the application runs on.
 */
public final class JTraceAgent {
    private JTraceAgent() {}

    /** {@code java -javaagent:jtrace.jar[=options]}. */
    public static void premain(String args, Instrumentation instrumentation) {
        launch(args);
    }

    /** {@code jcmd <pid> JVMTI.agent_load jtrace.jar [options]} or the Attach API. */
    public static void agentmain(String args, Instrumentation instrumentation) {
        launch(args);
    }

    static void launch(String args) {
        AgentOptions options;
        try {
            options = AgentOptions.parse(args);
        } catch (IllegalArgumentException e) {
            AgentLogging.configure("warn");
            LoggerFactory.getLogger(JTraceAgent.class).error("jtrace agent not started: {}", e.getMessage());
            return;
        }
        AgentLogging.configure(options.logLevel());
        Logger log = LoggerFactory.getLogger(JTraceAgent.class);
        try {
            AgentRuntime runtime = AgentRuntime.get();
            if (options.start()) {
                FileSession session = runtime.startSession(options);
                log.info("jtrace: tracing to {}", session.file());
            }
        } catch (Throwable t) {
            // A guest never takes the host down: report and stay out of the way.
            log.error("jtrace agent failed to start tracing", t);
        }
    }
}
