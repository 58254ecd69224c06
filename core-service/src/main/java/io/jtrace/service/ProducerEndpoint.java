package io.jtrace.service;

import io.jtrace.shm.writer.CommitSink;

/** What a producer may ask of the service. Every call only posts a task; none blocks on the service. */
public interface ProducerEndpoint extends CommitSink {
    int producerId();

    void registerDataSource(DataSourceDescriptor descriptor);

    /** A data source that sends no start/stop notifications. */
    default void registerDataSource(String name) {
        registerDataSource(DataSourceDescriptor.named(name));
    }

    /**
     * The producer no longer offers this data source: its running instances are taken as stopped, and
     * sessions that start later do not ask for it.
     */
    void unregisterDataSource(String name);

    /** Tells the service which buffer a writer writes into, so chunks it scrapes find their buffer. */
    void registerTraceWriter(int writerId, int targetBuffer);

    void unregisterTraceWriter(int writerId);

    /** An instance of a data source registered with willNotifyOnStart has started. */
    void notifyDataSourceStarted(long instanceId);

    /** An instance of a data source registered with willNotifyOnStop has stopped. */
    void notifyDataSourceStopped(long instanceId);

    /**
     * The producer has mapped the shared memory buffer of {@link Producer#onTracingSetup}: the service
     * unlinks its file now, so no other process can open it. (It also does when the producer goes, or
     * when the producer does not answer within {@link #SMB_MAP_TIMEOUT_MS}.)
     */
    void smbMapped();

    long SMB_MAP_TIMEOUT_MS = 10_000;

    void disconnect();
}
