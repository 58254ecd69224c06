package io.jtrace.jmx;

import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.Map;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import javax.management.InstanceAlreadyExistsException;
import javax.management.JMException;
import javax.management.MBeanAttributeInfo;
import javax.management.MBeanInfo;
import javax.management.MBeanNotificationInfo;
import javax.management.MBeanOperationInfo;
import javax.management.MBeanParameterInfo;
import javax.management.MBeanServer;
import javax.management.Notification;
import javax.management.NotificationBroadcasterSupport;
import javax.management.ObjectName;
import javax.management.StandardEmitterMBean;

/**
 * {@code io.jtrace:type=Tracing} on the platform MBean server: {@link TracingMXBean} over the agent's
 * {@link TracingControl}, with a description on every attribute, operation and parameter (JConsole
 * shows them) and the notifications of {@link Notifications}. Remote access is whatever the JVM's own
 * JMX settings allow; jtrace opens no listener.
 */
public final class TracingMBean extends StandardEmitterMBean {
    private static final Map<String, String> ATTRIBUTES = Map.of(
            "Sessions", "Tracing sessions (started by the agent's options, jcmd, JMX or the CLI): name, state, "
                    + "mode, config, file, bytes written, data sources, buffers with size, fill and counters, losses",
            "Producers", "Producers connected to the tracing service and the data sources each offers",
            "DataSources", "Data sources a session can enable, with the producer offering each");
    private static final Map<String, String> OPERATIONS = Map.of(
            "start", "Starts a session from agent-style options (sources=track_event+jvm.gc,duration=30s,"
                    + "file=/tmp/x.pftrace,buffer=64m,ring,name=...). Returns the session",
            "startWithConfig", "Starts a session from a Perfetto TraceConfig in text format (as perfetto --txt -c "
                    + "takes it). Returns the session",
            "stop", "Stops a session and waits until its trace file is complete. Returns the session with its "
                    + "file and bytes",
            "flush", "Makes every producer of a session commit what its writers have handed over; a session that "
                    + "streams into a file also gets what they still hold. Returns the session",
            "dump", "Writes the trace of a running ring-mode session so far into a file while the session "
                    + "goes on (like JFR.dump). Returns the file, bytes and packets");
    private static final Map<String, String[][]> PARAMETERS = Map.of(
            "start", new String[][] {{"options", "Comma-separated agent options, as after -javaagent:jtrace.jar="}},
            "startWithConfig", new String[][] {
                {"traceConfig", "The TraceConfig in Perfetto's protobuf text format"},
                {"file", "Where the trace goes; empty for the config's output_path or jtrace-<pid>-<time>-<name>.pftrace"}},
            "stop", new String[][] {{"name", "The session's name; empty when only one session runs"}},
            "flush", new String[][] {{"name", "The session's name; empty when only one session runs"}},
            "dump", new String[][] {
                {"name", "The session's name; empty when only one session runs"},
                {"file", "Where to write the trace"}});

    private final NotificationBroadcasterSupport emitter;
    private final AtomicLong sequence = new AtomicLong();
    private final LossWatcher losses;

    private TracingMBean(TracingControl control, NotificationBroadcasterSupport emitter) {
        super(new SafeTracing(control), TracingMXBean.class, true, emitter);
        this.emitter = emitter;
        this.losses = new LossWatcher(control, this::dataLost);
        control.addSessionListener(new TracingControl.SessionListener() {
            @Override
            public void started(SessionInfo session) {
                send(Notifications.SESSION_STARTED, "jtrace session '" + session.name() + "' started, tracing to "
                        + session.file(), session, LossWatcher.Growth.NONE);
                losses.watch();
            }

            @Override
            public void stopped(SessionInfo session) {
                send(Notifications.SESSION_STOPPED, "jtrace session '" + session.name() + "' stopped"
                        + (session.error().isEmpty() ? ", trace in " + session.file() : ": " + session.error()),
                        session, LossWatcher.Growth.NONE);
            }
        });
        // Sessions that started before the MBean existed (a start-up session) are watched too.
        losses.watch();
    }

    /**
     * Registers the MBean for {@code control} on the platform MBean server. Throws
     * {@link InstanceAlreadyExistsException} when one is registered already (by another copy of jtrace
     * in this JVM): there must be one tracing service per JVM, and that one is it.
     */
    public static TracingMBean register(TracingControl control) throws JMException {
        // Listeners are called on a thread of their own: a session's end is reported from the service's
        // thread, which a listener calling back into the MBean (as in-process ones may) must not hold.
        ThreadPoolExecutor delivery = new ThreadPoolExecutor(0, 1, 10, TimeUnit.SECONDS, new LinkedBlockingQueue<>(),
                r -> {
                    Thread t = new Thread(r, "jtrace-jmx-notifications");
                    t.setDaemon(true);
                    return t;
                });
        TracingMBean mbean = new TracingMBean(control, new NotificationBroadcasterSupport(delivery, notificationInfo()));
        ManagementFactory.getPlatformMBeanServer().registerMBean(mbean, objectName());
        return mbean;
    }

    public static ObjectName objectName() {
        try {
            return new ObjectName(TracingMXBean.OBJECT_NAME);
        } catch (JMException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Unregisters it and stops watching for losses. */
    public void unregister() {
        losses.close();
        try {
            ManagementFactory.getPlatformMBeanServer().unregisterMBean(objectName());
        } catch (JMException alreadyGone) {
            // Someone unregistered it already: nothing left to do.
        }
    }

    private void dataLost(SessionInfo session, LossWatcher.Growth growth) {
        send(Notifications.DATA_LOST, "jtrace session '" + session.name() + "' lost data: " + growth.eventsLost()
                + " track events, " + growth.chunksLost() + " chunks, " + growth.writerPacketLoss() + " writer drops",
                session, growth);
    }

    private void send(String type, String message, SessionInfo session, LossWatcher.Growth growth) {
        Notification n = new Notification(type, objectName(), sequence.incrementAndGet(), System.currentTimeMillis(),
                message);
        n.setUserData(Notifications.data(session, growth));
        emitter.sendNotification(n);
    }

    private static MBeanNotificationInfo[] notificationInfo() {
        return new MBeanNotificationInfo[] {
            new MBeanNotificationInfo(new String[] {Notifications.SESSION_STARTED}, Notification.class.getName(),
                    "A tracing session started; user data: the session (CompositeData)"),
            new MBeanNotificationInfo(new String[] {Notifications.SESSION_STOPPED}, Notification.class.getName(),
                    "A tracing session stopped and its trace file is complete; user data: the session with its "
                            + "file, bytes and losses"),
            new MBeanNotificationInfo(new String[] {Notifications.DATA_LOST}, Notification.class.getName(),
                    "A running session lost data (a writer dropped packets because shared memory was full, a "
                            + "chunk was discarded, or a streamed session's buffer was overwritten); user data: "
                            + "the session with the new losses"),
        };
    }

    @Override
    protected String getDescription(MBeanInfo info) {
        return "jtrace: Perfetto tracing of this JVM. Start, stop, flush and dump tracing sessions; see sessions, "
                + "producers and data sources";
    }

    @Override
    protected String getDescription(MBeanAttributeInfo info) {
        return ATTRIBUTES.getOrDefault(info.getName(), info.getDescription());
    }

    @Override
    protected String getDescription(MBeanOperationInfo info) {
        return OPERATIONS.getOrDefault(info.getName(), info.getDescription());
    }

    @Override
    protected String getParameterName(MBeanOperationInfo op, MBeanParameterInfo param, int sequence) {
        String[][] params = PARAMETERS.get(op.getName());
        return params != null && sequence < params.length ? params[sequence][0] : param.getName();
    }

    @Override
    protected String getDescription(MBeanOperationInfo op, MBeanParameterInfo param, int sequence) {
        String[][] params = PARAMETERS.get(op.getName());
        return params != null && sequence < params.length ? params[sequence][1] : param.getDescription();
    }

    /**
     * The control with every failure turned into a JDK exception carrying only a message: a remote
     * client without jtrace's classes could not deserialize jtrace's exceptions (or their causes).
     */
    private static final class SafeTracing implements TracingMXBean {
        private final TracingControl control;

        SafeTracing(TracingControl control) {
            this.control = control;
        }

        @Override
        public List<SessionInfo> getSessions() {
            return call(control::getSessions);
        }

        @Override
        public List<ProducerInfo> getProducers() {
            return call(control::getProducers);
        }

        @Override
        public List<DataSourceInfo> getDataSources() {
            return call(control::getDataSources);
        }

        @Override
        public SessionInfo start(String options) {
            return call(() -> control.start(options));
        }

        @Override
        public SessionInfo startWithConfig(String traceConfigText, String file) {
            return call(() -> control.startWithConfig(traceConfigText, file));
        }

        @Override
        public SessionInfo stop(String name) {
            return call(() -> control.stop(name));
        }

        @Override
        public SessionInfo flush(String name) {
            return call(() -> control.flush(name));
        }

        @Override
        public DumpInfo dump(String name, String file) {
            return call(() -> control.dump(name, file));
        }

        private static <T> T call(java.util.function.Supplier<T> action) {
            try {
                return action.get();
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(e.getMessage());
            } catch (RuntimeException e) {
                throw new IllegalStateException(e.getMessage() != null ? e.getMessage() : e.toString());
            }
        }
    }
}
