package io.jtrace.producer;

import io.jtrace.shm.writer.TraceWriter;

/** What a data source instance gets from its producer. */
public interface DataSourceContext {
    /**
     * A new writer into the instance's target buffer, for use by one thread at a time. Close it when
     * done: that retires its sequence and gives its writer id back. Throws {@link IllegalStateException}
     * when every writer id is in use.
     */
    TraceWriter newTraceWriter();

    /** The service's buffer id this instance writes into. */
    int targetBuffer();

    long instanceId();

    /**
     * How many chunks of the default layout the producer's SMB holds: the budget a data source must
     * share between writers that keep a chunk (one each) and the chunks in flight to the service.
     */
    int smbChunks();

    /**
     * Runs {@code task} on the producer's thread (the thread that calls start, stop and
     * clearIncrementalState) every {@code periodMillis} until {@link Cancellable#cancel} is called.
     */
    Cancellable every(long periodMillis, Runnable task);

    /** A periodic task that can be stopped. */
    interface Cancellable {
        void cancel();
    }
}
