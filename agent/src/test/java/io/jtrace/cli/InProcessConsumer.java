package io.jtrace.cli;

import io.jtrace.consumer.TracingConsumer;
import io.jtrace.consumer.TracingException;
import io.jtrace.protos.TraceConfig;
import io.jtrace.protos.TraceStats;
import io.jtrace.protos.TracingServiceState;
import io.jtrace.service.ConsumerEndpoint;
import io.jtrace.service.ProcessIdentity;
import io.jtrace.service.TracingService;
import io.jtrace.service.buffer.PacketSink;
import io.jtrace.service.port.ServiceStateProtos;
import io.jtrace.service.status.BufferStatus;
import io.jtrace.service.status.SessionStatus;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * A {@link TracingConsumer} over a real in-process {@link TracingService}, as the consumer port client
 * is over a socket: the session's end completes the enableTracing future, every failure of the service
 * reaches the caller as a {@link TracingException} with the service's message.
 */
public final class InProcessConsumer implements TracingConsumer {
    private final TracingService service;
    private final ConsumerEndpoint endpoint;
    /** The session of the latest enableTracing: its end completes it. */
    private volatile CompletableFuture<Void> ended = new CompletableFuture<>();
    /** The session's id once the service has started it and every data source reported started. */
    public final CompletableFuture<Long> started = new CompletableFuture<>();
    /** Every config this consumer sent, for tests to check. */
    public final List<TraceConfig> configs = new CopyOnWriteArrayList<>();
    /** Reads answered so far; a test can make reads fail from some count on (a lost connection). */
    public volatile int reads;
    public volatile int failReadsFrom = Integer.MAX_VALUE;
    public volatile boolean closed;
    /** Sees every packet delivered, before the reader does. */
    public volatile Consumer<byte[]> tap = bytes -> { };

    /** A consumer of the service's own user: the service may write files for it. */
    public InProcessConsumer(TracingService service) {
        this(service, ProcessIdentity.uid());
    }

    /** A consumer of user {@code uid}; of another user than the service's, it gets no write_into_file. */
    public InProcessConsumer(TracingService service, int uid) {
        this.service = service;
        this.endpoint = service.connectConsumer(error -> {
            if (error == null) {
                ended.complete(null);
            } else {
                ended.completeExceptionally(new TracingException(error));
            }
        }, uid);
    }

    @Override
    public CompletableFuture<Void> enableTracing(TraceConfig config) {
        configs.add(config);
        CompletableFuture<Void> ended = new CompletableFuture<>();
        this.ended = ended;
        endpoint.enableTracing(config).whenComplete((id, e) -> {
            if (e != null) {
                ended.completeExceptionally(new TracingException(reason(e)));
            } else {
                started.complete(id);
            }
        });
        return ended;
    }

    @Override
    public CompletableFuture<Void> disableTracing() {
        return mapped(endpoint.disableTracing());
    }

    @Override
    public CompletableFuture<Boolean> flush(int timeoutMillis) {
        return mapped(endpoint.flush(timeoutMillis));
    }

    @Override
    public CompletableFuture<Long> readBuffers(Consumer<byte[]> packets) {
        if (reads >= failReadsFrom) {
            return CompletableFuture.failedFuture(new TracingException("connection lost"));
        }
        return mapped(endpoint.readBuffers(PacketSink.joined((bytes, offset, length) ->
                {
                    byte[] packet = Arrays.copyOfRange(bytes, offset, offset + length);
                    tap.accept(packet);
                    packets.accept(packet);
                }))).thenApply(n -> {
                    reads++;
                    return n;
                });
    }

    @Override
    public CompletableFuture<Void> freeBuffers() {
        return mapped(endpoint.freeBuffers());
    }

    @Override
    public CompletableFuture<TraceStats> traceStats() {
        return service.status().thenApply(status -> {
            TraceStats.Builder stats = TraceStats.newBuilder();
            SessionStatus session = status.session(started.getNow(-1L));
            if (session != null) {
                for (BufferStatus b : session.buffers()) {
                    stats.addBufferStats(b.stats());
                }
            }
            return stats.build();
        });
    }

    @Override
    public CompletableFuture<TracingServiceState> serviceState() {
        return service.status().thenApply(ServiceStateProtos::of);
    }

    @Override
    public void close() {
        closed = true;
    }

    private static <T> CompletableFuture<T> mapped(CompletableFuture<T> future) {
        CompletableFuture<T> result = new CompletableFuture<>();
        future.whenComplete((v, e) -> {
            if (e != null) {
                result.completeExceptionally(new TracingException(reason(e)));
            } else {
                result.complete(v);
            }
        });
        return result;
    }

    private static String reason(Throwable e) {
        Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
        return cause.getMessage() != null ? cause.getMessage() : cause.toString();
    }
}
