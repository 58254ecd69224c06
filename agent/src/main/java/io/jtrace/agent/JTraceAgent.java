package io.jtrace.agent;

import io.jtrace.agent.apibind.ApiCopies;
import io.jtrace.agent.backend.DaemonSocket;
import io.jtrace.agent.control.AgentCommand;
import io.jtrace.jmx.TracingMBean;
import io.jtrace.jmx.TracingMXBean;
import java.lang.instrument.Instrumentation;
import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.Locale;
import javax.management.JMX;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code -javaagent} entry points ({@code Premain-Class} and {@code Agent-Class}).
 *
 * <p>premain never throws into the host JVM: a bad option is logged and tracing stays off; the
 * application runs on. agentmain is how jcmd and the Attach API give commands ({@link AgentCommand});
 * a command that fails is logged and then thrown, because that is the only way jcmd learns of it
 * ({@code JVMTI.agent_load} then reports a non-zero return code). The JVM prints that exception on its
 * stderr; the application goes on untouched.
 */
public final class JTraceAgent {
    private JTraceAgent() {}

    /** {@code java -javaagent:jtrace.jar[=options]}. */
    public static void premain(String args, Instrumentation instrumentation) {
        try {
            run(args, true);
        } catch (Throwable t) {
            // A guest never takes the host down: it was logged; stay out of the way.
        }
    }

    /** {@code jcmd <pid> JVMTI.agent_load jtrace.jar [command]} or the Attach API. */
    public static void agentmain(String args, Instrumentation instrumentation) {
        try {
            run(args, false);
        } finally {
            // Copies of the API the application loaded before this attach announced themselves to nobody.
            ApiCopies.bindLoaded(instrumentation);
        }
    }

    /** Sets the agent up in the background when no session starts at once. */
    private static final class Initializer implements Runnable {
        private final DaemonSocket daemon;

        Initializer(DaemonSocket daemon) {
            this.daemon = daemon;
        }

        @Override
        public void run() {
            try {
                AgentRuntime.get().startInBackground(daemon);
            } catch (Throwable t) {
                if (AgentRuntime.current() == null) {
                    // Announced before this thread ran: nothing answers now, so a command must not wait
                    // for it, and a later load may try again.
                    AgentRuntime.withdrawAnnouncement();
                }
                LoggerFactory.getLogger(JTraceAgent.class).error("jtrace agent failed to initialize", t);
            }
        }
    }

    static void run(String args, boolean atStartup) {
        AgentCommand command;
        String logLevel;
        DaemonSocket daemon = DaemonSocket.DEFAULT;
        try {
            command = AgentCommand.parse(args);
            boolean withOptions = command.verb() == AgentCommand.Verb.LOAD || command.verb() == AgentCommand.Verb.START;
            AgentOptions options = withOptions ? AgentOptions.parse(command.text()) : null;
            logLevel = withOptions ? options.logLevel() : command.logLevel();
            if (withOptions) {
                daemon = options.socket();
            }
        } catch (IllegalArgumentException e) {
            AgentLogging.configure("warn");
            LoggerFactory.getLogger(JTraceAgent.class).error(atStartup ? "jtrace agent not started: {}"
                    : "jtrace agent command failed: {}", e.getMessage());
            throw e;
        } catch (RuntimeException e) {
            // A bug of ours in reading the options: said, with its stack, rather than tracing quietly staying off.
            AgentLogging.configure("warn");
            LoggerFactory.getLogger(JTraceAgent.class).error(atStartup ? "jtrace agent not started: could not read its options '{}'"
                    : "jtrace agent command failed: could not read '{}'", args, e);
            throw e;
        }
        AgentLogging.configure(logLevel != null ? logLevel : "warn");
        Logger log = LoggerFactory.getLogger(JTraceAgent.class);
        if (command.verb() == AgentCommand.Verb.LOAD) {
            if (AgentRuntime.current() == null && (atStartup || !otherCopyRunning())) {
                // Nothing to trace yet: set up off the application's start-up path. Tracing that starts
                // later (jcmd) waits for this through AgentRuntime.get().
                // A named class, not a lambda: the JVM's first lambda costs milliseconds to bootstrap.
                AgentRuntime.announceLoaded();
                Thread init = new Thread(new Initializer(daemon), "jtrace-init");
                init.setDaemon(true);
                init.start();
            } else {
                startInBackground(daemon);
            }
            return;
        }
        if (atStartup && command.verb() != AgentCommand.Verb.START) {
            log.error("jtrace agent: '{}' is a command for a running JVM (jcmd), not a start-up option",
                    command.verb().name().toLowerCase(Locale.ROOT));
            return;
        }
        try {
            // Synchronous: at start-up the session runs before premain returns, so the application's
            // first events are traced. The platform MBean server is left alone then (it costs start-up
            // time, and nothing else can have registered jtrace's MBean yet).
            List<String> result = command.run(atStartup ? AgentRuntime.get().sessions() : control());
            // The registry logs every session's start and end, whoever asked; the rest is logged here.
            if (command.verb() != AgentCommand.Verb.START && command.verb() != AgentCommand.Verb.STOP) {
                for (String line : result) {
                    log.info("jtrace: {}", line);
                }
            }
        } catch (IllegalArgumentException | IllegalStateException e) {
            // The user's mistake or a state that forbids it: one clear line, no stack.
            log.error(atStartup ? "jtrace agent not started: {}" : "jtrace agent command failed: {}", e.getMessage());
            throw e;
        } catch (RuntimeException | Error e) {
            log.error("jtrace agent command '{}' failed", command.text(), e);
            throw e;
        } finally {
            startInBackground(daemon);
        }
    }

    /** The MBean, consumer socket and daemon link of this copy's runtime, if it has one, started in the background (once). */
    private static void startInBackground(DaemonSocket daemon) {
        AgentRuntime runtime = AgentRuntime.current();
        if (runtime != null) {
            runtime.startInBackground(daemon);
        }
    }

    /** Whether another copy of jtrace (another class loader) runs this JVM's tracing service. */
    private static boolean otherCopyRunning() {
        return ManagementFactory.getPlatformMBeanServer().isRegistered(TracingMBean.objectName());
    }

    /**
     * The session registry of this JVM's one tracing service: this copy's, or, when another copy of
     * jtrace (another class loader) created the service, that one's through its MBean.
     */
    private static TracingMXBean control() {
        AgentRuntime runtime = AgentRuntime.current();
        if (runtime == null && otherCopyRunning()) {
            return JMX.newMXBeanProxy(ManagementFactory.getPlatformMBeanServer(), TracingMBean.objectName(),
                    TracingMXBean.class);
        }
        return (runtime != null ? runtime : AgentRuntime.get()).sessions();
    }
}
