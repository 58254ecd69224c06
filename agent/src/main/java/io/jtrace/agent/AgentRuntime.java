package io.jtrace.agent;

import io.jtrace.agent.backend.ConsumerSocket;
import io.jtrace.agent.backend.DaemonSocket;
import io.jtrace.agent.backend.SystemBackend;
import io.jtrace.agent.control.SessionRegistry;
import io.jtrace.agent.gc.GcDataSource;
import io.jtrace.agent.jmx.JmxDataSource;
import io.jtrace.agent.memory.MemoryDataSource;
import io.jtrace.agent.threads.ThreadsDataSource;
import io.jtrace.agent.trackevent.TrackEventDataSource;
import io.jtrace.producer.tracks.ProcessTrack;
import io.jtrace.jfr.live.JfrDataSource;
import io.jtrace.jmx.TracingMBean;
import io.jtrace.jmx.TracingMXBean;
import io.jtrace.ipc.SocketPaths;
import io.jtrace.producer.DataSource;
import io.jtrace.producer.ProducerClient;
import io.jtrace.service.ServiceConfig;
import io.jtrace.service.TracingService;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import javax.management.InstanceAlreadyExistsException;
import org.slf4j.LoggerFactory;

/**
 * Everything the agent runs in the host JVM: the embedded tracing service, this JVM's producer with its
 * data sources, the one registry of sessions every control surface uses, and the
 * {@code io.jtrace:type=Tracing} MBean over it. One per JVM, created on the first premain/agentmain.
 *
 * <p>Both {@code -javaagent} and {@code JVMTI.agent_load} load the agent class through the system class
 * loader, so a later agentmain finds this class, and its instance, already there (verified by
 * AgentControlTest in integration-tests). A copy of jtrace loaded by some other class loader would have
 * its own statics: {@link JTraceAgent} checks the platform MBean server for the MBean before creating a
 * runtime, and drives the one it finds instead.
 */
final class AgentRuntime {
    private static AgentRuntime instance;
    /**
     * The thread the polling data sources (jvm.threads, jvm.memory, jvm.jmx) sample on: off the producer
     * thread, which must stay free to answer flushes. A daemon: it never keeps the host JVM alive.
     */
    private static final ScheduledExecutorService SAMPLER = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "jtrace-sampler");
        t.setDaemon(true);
        return t;
    });

    private final TracingService service;
    private final ProducerClient producer;
    private final List<DataSource> sources;
    private final SessionRegistry sessions;
    private boolean backgroundStarted;

    private AgentRuntime() {
        ProcessTrack process = ProcessTrack.forCurrentJvm();
        this.service = new TracingService(embeddedServiceConfig());
        TrackEventDataSource trackEvent = new TrackEventDataSource(process);
        this.sources = List.of(trackEvent, new GcDataSource(process),
                new ThreadsDataSource(process, SAMPLER), new MemoryDataSource(process, SAMPLER),
                new JmxDataSource(process, SAMPLER),
                new JfrDataSource(process));
        this.producer = new ProducerClient("jvm:" + process.pid(), sources);
        producer.connect(p -> service.connectInProcessProducer(p, producer.name()));
        this.sessions = new SessionRegistry(service, new AgentRequests(), trackEvent::lostEvents, true);
        announceLoaded();
        LoggerFactory.getLogger(AgentRuntime.class).debug("jtrace runtime created in class loader {}",
                AgentRuntime.class.getClassLoader());
    }

    /**
     * Sets the system property by which {@code jtrace list} and the CLI tell, without loading anything,
     * that this JVM runs jtrace. Set before the runtime is built in the background too, so a command
     * that arrives meanwhile waits for the agent's MBean instead of reporting it absent.
     */
    static void announceLoaded() {
        String version = AgentRuntime.class.getPackage().getImplementationVersion();
        System.setProperty(TracingMXBean.LOADED_PROPERTY, version != null ? version : "dev");
    }

    /** The runtime could not be built after {@link #announceLoaded}: this JVM does not run jtrace after all. */
    static void withdrawAnnouncement() {
        System.clearProperty(TracingMXBean.LOADED_PROPERTY);
    }

    /**
     * Starts, once and in the background, what reaches this JVM from outside: {@code io.jtrace:type=Tracing},
     * the consumer socket of the embedded service, and the link to a {@code jtrace daemon} at
     * {@code daemon}. Off the caller's path: the platform MBean server costs tens of milliseconds to
     * start, and premain must not make the application wait for it. Called after a start-up session has
     * started, so the garbage this makes (and any GC it causes) is traced like the application's own.
     */
    synchronized void startInBackground(DaemonSocket daemon) {
        if (backgroundStarted) {
            return;
        }
        backgroundStarted = true;
        Thread background = new Thread(new BackgroundStart(this, daemon), "jtrace-background-start");
        background.setDaemon(true);
        background.start();
    }

    /**
     * The embedded service lives in the application's heap: all its sessions' buffers together (whoever
     * asks: options, jcmd, JMX, {@code jtrace record --pid}) get at most half of the max heap, and no more
     * than the service's own limit.
     */
    private static ServiceConfig embeddedServiceConfig() {
        ServiceConfig d = ServiceConfig.defaults();
        long cap = Math.min(d.maxTotalBufferBytes(), Runtime.getRuntime().maxMemory() / 2);
        return new ServiceConfig(AgentOptions.EMBEDDED_SMB_BYTES, d.smbPageSize(), d.smbDirectory(), d.maxSessions(), cap,
                d.defaultFlushTimeoutMillis(), d.maxSessionsPerUid());
    }

    static synchronized AgentRuntime get() {
        if (instance == null) {
            instance = new AgentRuntime();
        }
        return instance;
    }

    /** The runtime if this copy of the agent created one, else null. */
    static synchronized AgentRuntime current() {
        return instance;
    }

    SessionRegistry sessions() {
        return sessions;
    }

    /** What {@link #startInBackground} runs; a named class, not a lambda: the JVM's first lambda costs milliseconds to bootstrap. */
    private static final class BackgroundStart implements Runnable {
        private final AgentRuntime runtime;
        private final DaemonSocket daemon;

        BackgroundStart(AgentRuntime runtime, DaemonSocket daemon) {
            this.runtime = runtime;
            this.daemon = daemon;
        }

        @Override
        public void run() {
            registerMBean(runtime.sessions);
            ConsumerSocket.serve(runtime.service, SocketPaths.defaults(), ProcessHandle.current().pid());
            if (daemon.path() != null) {
                SystemBackend.start(daemon.path(), runtime.producer.name(), runtime.sources);
            }
        }

        private static void registerMBean(SessionRegistry sessions) {
            try {
                TracingMBean.register(sessions);
            } catch (InstanceAlreadyExistsException e) {
                LoggerFactory.getLogger(AgentRuntime.class).warn("jtrace: another copy of jtrace in this JVM already "
                        + "registered {}; this one is not reachable through JMX", TracingMBean.objectName());
            } catch (Throwable t) {
                LoggerFactory.getLogger(AgentRuntime.class).warn("jtrace: registering {} failed", TracingMBean.objectName(), t);
            }
        }
    }
}
