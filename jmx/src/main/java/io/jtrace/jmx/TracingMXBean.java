package io.jtrace.jmx;

import java.util.List;

/**
 * The control MXBean {@code io.jtrace:type=Tracing}: start, stop, flush and dump tracing sessions, and
 * see sessions, producers and data sources. Every type maps to open types (CompositeData, arrays), so any
 * JMX client (JConsole, VisualVM, a plain {@code MBeanServerConnection}) uses it without jtrace's
 * classes. Descriptions of each attribute, operation and parameter are in {@link TracingMBean}.
 * Operations fail with {@link IllegalArgumentException} (bad input) or {@link IllegalStateException}
 * (not possible now), each with a message that says what was wrong.
 */
public interface TracingMXBean {
    /** The object name it is registered under on the platform MBean server. */
    String OBJECT_NAME = "io.jtrace:type=Tracing";
    /** The system property a loaded jtrace agent sets to its version, so tools can tell without loading anything. */
    String LOADED_PROPERTY = "io.jtrace.agent";

    List<SessionInfo> getSessions();

    List<ProducerInfo> getProducers();

    List<DataSourceInfo> getDataSources();

    SessionInfo start(String options);

    SessionInfo startWithConfig(String traceConfigText, String file);

    SessionInfo stop(String name);

    SessionInfo flush(String name);

    DumpInfo dump(String name, String file);
}
