package io.jtrace.service;

import io.jtrace.protos.TraceConfig;
import io.jtrace.protos.TraceStats;
import io.jtrace.service.buffer.PacketSink;
import java.util.concurrent.CompletableFuture;

/** What a consumer may ask of the service: one tracing session per consumer connection. */
public interface ConsumerEndpoint {
    /**
     * Starts a session. Completes with its id once every data source instance that notifies on start
     * has started (bounded by the start timeout); fails with {@link InvalidConfigException},
     * {@link ServiceLimitException} or {@link SessionNameTakenException}.
     */
    CompletableFuture<Long> enableTracing(TraceConfig config);

    /** Asks every producer of the session to commit what it has; true if all answered in time. */
    CompletableFuture<Boolean> flush(long timeoutMillis);

    /**
     * Stops the session's data sources (waiting, bounded, for those that notify on stop), flushes,
     * freezes its buffers and, with write_into_file, finishes the file. Completes when done.
     */
    CompletableFuture<Void> disableTracing();

    /**
     * Delivers the session's packets to {@code sink} on the service thread: the service's own packets
     * first, then every buffer's, then trace stats once the session is disabled. While the session
     * runs, only what can be read in order is delivered; later reads continue. Returns the count.
     * Not for sessions that write into a file.
     */
    CompletableFuture<Long> readBuffers(PacketSink sink);

    /** The session's statistics as the trace's TraceStats packet would hold them now. */
    CompletableFuture<TraceStats> traceStats();

    /** Drops the session and its buffers. */
    CompletableFuture<Void> freeBuffers();
}
