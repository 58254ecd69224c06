package io.jtrace.service;

import io.jtrace.protos.TraceConfig;
import io.jtrace.service.buffer.PacketSink;
import java.util.concurrent.CompletableFuture;

/** What a consumer may ask of the service: one tracing session per consumer connection. */
public interface ConsumerEndpoint {
    /** Starts a session; fails with {@link InvalidConfigException} or {@link ServiceLimitException}. */
    CompletableFuture<Long> enableTracing(TraceConfig config);

    /** Asks every producer of the session to commit what it has; true if all answered in time. */
    CompletableFuture<Boolean> flush(long timeoutMillis);

    /** Stops the session's data sources, flushes and freezes its buffers. Completes when done. */
    CompletableFuture<Void> disableTracing();

    /**
     * Delivers the session's packets to {@code sink} on the service thread: the service's own packets
     * first, then every buffer's, then trace stats once the session is disabled. Returns the count.
     */
    CompletableFuture<Long> readBuffers(PacketSink sink);

    /** Drops the session and its buffers. */
    CompletableFuture<Void> freeBuffers();
}
