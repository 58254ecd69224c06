package io.jtrace.consumer;

import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.MessageLite;
import io.jtrace.ipc.IpcClient;
import io.jtrace.ipc.ReplyHandler;
import io.jtrace.ipc.ServiceProxy;
import io.jtrace.ports.Calls;
import io.jtrace.ports.PortNames;
import io.jtrace.protos.DisableTracingRequest;
import io.jtrace.protos.EnableTracingRequest;
import io.jtrace.protos.EnableTracingResponse;
import io.jtrace.protos.FlushRequest;
import io.jtrace.protos.FreeBuffersRequest;
import io.jtrace.protos.GetTraceStatsRequest;
import io.jtrace.protos.GetTraceStatsResponse;
import io.jtrace.protos.QueryServiceStateRequest;
import io.jtrace.protos.QueryServiceStateResponse;
import io.jtrace.protos.ReadBuffersRequest;
import io.jtrace.protos.ReadBuffersResponse;
import io.jtrace.protos.TraceConfig;
import io.jtrace.protos.TraceStats;
import io.jtrace.protos.TracingServiceState;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/** A {@link TracingConsumer} over the consumer port of a service in another process. */
public final class IpcTracingConsumer implements TracingConsumer {
    private final IpcClient client;
    private final ServiceProxy port;

    private IpcTracingConsumer(IpcClient client, ServiceProxy port) {
        this.client = client;
        this.port = port;
    }

    /** Connects to the consumer socket at {@code socket} and binds ConsumerPort, waiting at most {@code timeoutMillis}. */
    public static IpcTracingConsumer connect(Path socket, long timeoutMillis) throws IOException {
        IpcClient client = IpcClient.connect(socket, () -> { });
        try {
            return new IpcTracingConsumer(client, Calls.await(client.bind(PortNames.CONSUMER_PORT), timeoutMillis,
                    "binding ConsumerPort on " + socket));
        } catch (IOException e) {
            client.close();
            throw e;
        }
    }

    @Override
    public CompletableFuture<Void> enableTracing(TraceConfig config) {
        return single("EnableTracing", EnableTracingRequest.newBuilder().setTraceConfig(config).build())
                .thenApply(reply -> {
                    EnableTracingResponse response = parse(reply, EnableTracingResponse::parseFrom);
                    if (!response.getError().isEmpty()) {
                        throw new TracingException(response.getError());
                    }
                    return null;
                });
    }

    @Override
    public CompletableFuture<Void> disableTracing() {
        return single("DisableTracing", DisableTracingRequest.getDefaultInstance()).thenApply(reply -> null);
    }

    @Override
    public CompletableFuture<Boolean> flush(int timeoutMillis) {
        CompletableFuture<Boolean> result = new CompletableFuture<>();
        port.invoke("Flush", FlushRequest.newBuilder().setTimeoutMs(timeoutMillis).build(), new ReplyHandler() {
            @Override
            public void onReply(ByteString reply, boolean hasMore) {
                result.complete(true);
            }

            @Override
            public void onFailure(String reason) {
                // The service answers a flush that timed out with success = false; the connection
                // being gone is the other way here.
                if (client.isConnected()) {
                    result.complete(false);
                } else {
                    result.completeExceptionally(new TracingException("Flush: " + reason));
                }
            }
        });
        return result;
    }

    @Override
    public CompletableFuture<Long> readBuffers(Consumer<byte[]> packets) {
        CompletableFuture<Long> result = new CompletableFuture<>();
        port.invoke("ReadBuffers", ReadBuffersRequest.getDefaultInstance(), new ReplyHandler() {
            private final ByteArrayOutputStream partial = new ByteArrayOutputStream();
            private long count;

            @Override
            public void onReply(ByteString reply, boolean hasMore) {
                if (result.isDone()) {
                    return;
                }
                ReadBuffersResponse response;
                try {
                    response = ReadBuffersResponse.parseFrom(reply);
                } catch (InvalidProtocolBufferException e) {
                    result.completeExceptionally(new TracingException("ReadBuffers: a reply does not parse"));
                    return;
                }
                for (ReadBuffersResponse.Slice slice : response.getSlicesList()) {
                    // Slices of one packet arrive in order; the last one completes it.
                    partial.write(slice.getData().toByteArray(), 0, slice.getData().size());
                    if (slice.getLastSliceForPacket()) {
                        packets.accept(partial.toByteArray());
                        partial.reset();
                        count++;
                    }
                }
                if (!hasMore) {
                    result.complete(count);
                }
            }

            @Override
            public void onFailure(String reason) {
                result.completeExceptionally(new TracingException("ReadBuffers: " + reason));
            }
        });
        return result;
    }

    @Override
    public CompletableFuture<Void> freeBuffers() {
        return single("FreeBuffers", FreeBuffersRequest.getDefaultInstance()).thenApply(reply -> null);
    }

    @Override
    public CompletableFuture<TraceStats> traceStats() {
        return single("GetTraceStats", GetTraceStatsRequest.getDefaultInstance())
                .thenApply(reply -> parse(reply, GetTraceStatsResponse::parseFrom).getTraceStats());
    }

    @Override
    public CompletableFuture<TracingServiceState> serviceState() {
        return single("QueryServiceState", QueryServiceStateRequest.getDefaultInstance())
                .thenApply(reply -> parse(reply, QueryServiceStateResponse::parseFrom).getServiceState());
    }

    @Override
    public void close() {
        client.close();
    }

    /** A call answered by one reply (the last of a stream, when the service streams). */
    private CompletableFuture<ByteString> single(String method, MessageLite args) {
        return Calls.call(port, method, args, TracingException::new);
    }

    private interface Parser<T> {
        T parse(ByteString bytes) throws InvalidProtocolBufferException;
    }

    private static <T> T parse(ByteString reply, Parser<T> parser) {
        try {
            return parser.parse(reply);
        } catch (InvalidProtocolBufferException e) {
            throw new TracingException("the service sent a reply that does not parse: " + e.getMessage());
        }
    }
}
