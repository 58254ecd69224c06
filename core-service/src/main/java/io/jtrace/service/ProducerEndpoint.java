package io.jtrace.service;

import io.jtrace.shm.writer.CommitSink;

/** What a producer may ask of the service. Every call only posts a task; none blocks on the service. */
public interface ProducerEndpoint extends CommitSink {
    int producerId();

    void registerDataSource(String name);

    /** Tells the service which buffer a writer writes into, so chunks it scrapes find their buffer. */
    void registerTraceWriter(int writerId, int targetBuffer);

    void unregisterTraceWriter(int writerId);

    void disconnect();
}
