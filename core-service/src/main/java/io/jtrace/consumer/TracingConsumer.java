package io.jtrace.consumer;

import io.jtrace.protos.TraceConfig;
import io.jtrace.protos.TraceStats;
import io.jtrace.protos.TracingServiceState;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * A consumer of a tracing service in another process (the daemon, or a JVM's embedded service), over
 * the consumer port. One session per consumer, as in Perfetto. Every future fails with
 * {@link TracingException} when the service refuses or the connection is lost.
 */
public interface TracingConsumer extends AutoCloseable {
    /**
     * Starts a session with {@code config}. The future completes when the session has ended (its
     * duration elapsed or {@link #disableTracing} was called); it fails at once when the service refuses
     * the config, naming why.
     */
    CompletableFuture<Void> enableTracing(TraceConfig config);

    /** Asks the service to stop the session; the {@link #enableTracing} future completes once it has. */
    CompletableFuture<Void> disableTracing();

    /** Asks every producer of the session to commit what it has; true if all answered in time. */
    CompletableFuture<Boolean> flush(int timeoutMillis);

    /**
     * Reads what the session's buffers hold and can be read in order, each packet once (later reads
     * continue where this one ended): every packet is one serialized {@code TracePacket}, handed to
     * {@code packets} on the connection's reader thread. Completes with the number of packets.
     */
    CompletableFuture<Long> readBuffers(Consumer<byte[]> packets);

    /** Drops the session and its buffers. */
    CompletableFuture<Void> freeBuffers();

    /** The session's statistics so far (buffers, losses). */
    CompletableFuture<TraceStats> traceStats();

    /** The producers, data sources and sessions the service knows. */
    CompletableFuture<TracingServiceState> serviceState();

    /** Closes the connection; the service frees a session this consumer still has. */
    @Override
    void close();
}
