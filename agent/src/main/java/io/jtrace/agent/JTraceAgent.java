package io.jtrace.agent;

import io.jtrace.service.InvalidConfigException;
import io.jtrace.service.ServiceLimitException;
import java.lang.instrument.Instrumentation;
import java.util.concurrent.ExecutionException;
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

    /** Sets the agent up in the background when no session starts at once. */
    private static final class Initializer implements Runnable {
        @Override
        public void run() {
            try {
                AgentRuntime.get();
            } catch (Throwable t) {
                LoggerFactory.getLogger(JTraceAgent.class).error("jtrace agent failed to initialize", t);
            }
        }
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
        if (!options.start()) {
            // Nothing to trace yet: set up off the application's start-up path. Tracing that starts
            // later (jcmd) waits for this through AgentRuntime.get().
            // A named class, not a lambda: the JVM's first lambda costs milliseconds to bootstrap.
            Thread init = new Thread(new Initializer(), "jtrace-init");
            init.setDaemon(true);
            init.start();
            return;
        }
        Logger log = LoggerFactory.getLogger(JTraceAgent.class);
        try {
            // Synchronous: the session runs before premain returns, so the application's first events
            // are traced.
            FileSession session = AgentRuntime.get().startSession(options);
            log.info("jtrace: tracing to {}", session.file());
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof InvalidConfigException || cause instanceof ServiceLimitException) {
                // The user's mistake (say, a file that cannot be written): one clear line, no stack.
                log.error("jtrace agent not started: {}", cause.getMessage());
            } else {
                log.error("jtrace agent failed to start tracing", cause);
            }
        } catch (Throwable t) {
            // A guest never takes the host down: report and stay out of the way.
            log.error("jtrace agent failed to start tracing", t);
        }
    }
}
