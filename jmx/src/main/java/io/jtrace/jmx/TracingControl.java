package io.jtrace.jmx;

/**
 * What the agent implements for the MBean: the session registry behind every control surface (JMX,
 * jcmd, the CLI), so each surface sees and can stop the sessions of the others.
 */
public interface TracingControl extends TracingMXBean {
    /** Called on session start and end; {@link TracingMBean} turns these into JMX notifications. */
    interface SessionListener {
        void started(SessionInfo session);

        /** The session ended and its file is complete (or {@code session.error()} says why not). */
        void stopped(SessionInfo session);
    }

    void addSessionListener(SessionListener listener);
}
