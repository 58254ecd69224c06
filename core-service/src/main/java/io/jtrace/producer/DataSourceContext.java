package io.jtrace.producer;

import io.jtrace.shm.writer.TraceWriter;

/** What a data source instance gets from its producer. */
public interface DataSourceContext {
    /** A new writer into the instance's target buffer, for use by one thread. Close it when done. */
    TraceWriter newTraceWriter();

    /** The service's buffer id this instance writes into. */
    int targetBuffer();

    long instanceId();
}
