package io.jtrace.service.port;

import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.MessageLite;
import io.jtrace.ipc.IpcConnection;
import io.jtrace.ipc.Reply;
import io.jtrace.ipc.ServiceBinding;
import io.jtrace.protos.DisableTracingResponse;
import io.jtrace.protos.EnableTracingRequest;
import io.jtrace.protos.EnableTracingResponse;
import io.jtrace.protos.FlushRequest;
import io.jtrace.protos.FlushResponse;
import io.jtrace.protos.FreeBuffersResponse;
import io.jtrace.protos.GetTraceStatsResponse;
import io.jtrace.protos.QueryServiceStateResponse;
import io.jtrace.service.Consumer;
import io.jtrace.service.ConsumerEndpoint;
import io.jtrace.service.TracingService;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

/**
 * One connection's {@code ConsumerPort}. {@code EnableTracing} is answered once, when the session ends
 * (Perfetto's contract), or at once with the reason the service refused it. Calls come in on the IPC
 * host's I/O thread; answers go out from the service thread; {@link #enableReply} is the one field both
 * touch: it is set by a CAS (one session per connection) and answered by whoever takes it first with an
 * atomic read-and-clear, so it is answered exactly once.
 */
final class ConsumerPortBinding implements ServiceBinding, Consumer {
    private static final long DEFAULT_FLUSH_TIMEOUT_MS = 5000;

    private final TracingService service;
    private final ConsumerEndpoint endpoint;
    /** The open EnableTracing call, answered when the session ends. */
    private final AtomicReference<Reply> enableReply = new AtomicReference<>();

    ConsumerPortBinding(TracingService service, IpcConnection connection) {
        this.service = service;
        this.endpoint = service.connectConsumer(this, connection.peer().uid());
    }

    @Override
    public void invoke(String method, ByteString args, Reply reply) {
        try {
            switch (method) {
                case "EnableTracing" -> enable(EnableTracingRequest.parseFrom(args), reply);
                case "DisableTracing" -> answer(reply, endpoint.disableTracing(),
                        done -> DisableTracingResponse.getDefaultInstance());
                case "ReadBuffers" -> read(reply);
                case "FreeBuffers" -> answer(reply, endpoint.freeBuffers(), done -> FreeBuffersResponse.getDefaultInstance());
                case "Flush" -> flush(FlushRequest.parseFrom(args), reply);
                case "GetTraceStats" -> answer(reply, endpoint.traceStats(),
                        stats -> GetTraceStatsResponse.newBuilder().setTraceStats(stats).build());
                case "QueryServiceState" -> answer(reply, service.status(),
                        status -> QueryServiceStateResponse.newBuilder()
                                .setServiceState(ServiceStateProtos.of(status)).build());
                default -> reply.fail("ConsumerPort." + method + " is not supported by jtrace");
            }
        } catch (InvalidProtocolBufferException e) {
            reply.fail(method + ": arguments do not parse: " + e.getMessage());
        }
    }

    private void enable(EnableTracingRequest request, Reply reply) {
        if (request.getAttachNotificationOnly()) {
            reply.complete(refused("attach_notification_only is not supported by jtrace"));
            return;
        }
        if (!enableReply.compareAndSet(null, reply)) {
            reply.complete(refused("this connection already has a tracing session"));
            return;
        }
        endpoint.enableTracing(request.getTraceConfig()).whenComplete((id, error) -> {
            if (error != null) {
                Reply open = enableReply.getAndSet(null);
                if (open != null) {
                    open.complete(refused(messageOf(error)));
                }
            }
        });
    }

    /** From the service thread: the session ended. */
    @Override
    public void onTracingDisabled(String error) {
        Reply open = enableReply.getAndSet(null);
        if (open != null) {
            EnableTracingResponse.Builder response = EnableTracingResponse.newBuilder().setDisabled(true);
            if (error != null) {
                response.setError(error);
            }
            open.complete(response.build());
        }
    }

    private void read(Reply reply) {
        ReadBuffersBatcher batcher = new ReadBuffersBatcher(reply);
        endpoint.readBuffers(batcher).whenComplete((count, error) -> {
            if (error != null) {
                reply.fail("ReadBuffers: " + messageOf(error));
            } else {
                batcher.finish();
            }
        });
    }

    private void flush(FlushRequest request, Reply reply) {
        long timeout = request.getTimeoutMs() > 0 ? request.getTimeoutMs() : DEFAULT_FLUSH_TIMEOUT_MS;
        endpoint.flush(timeout).whenComplete((all, error) -> {
            if (error != null) {
                reply.fail("Flush: " + messageOf(error));
            } else if (!all) {
                reply.fail("Flush: not every producer answered within " + timeout + " ms");
            } else {
                reply.complete(FlushResponse.getDefaultInstance());
            }
        });
    }

    private static <T> void answer(Reply reply, CompletableFuture<T> result,
                                   Function<T, MessageLite> response) {
        result.whenComplete((value, error) -> {
            if (error != null) {
                reply.fail(messageOf(error));
            } else {
                reply.complete(response.apply(value));
            }
        });
    }

    private static EnableTracingResponse refused(String why) {
        return EnableTracingResponse.newBuilder().setError(why).build();
    }

    private static String messageOf(Throwable error) {
        Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
        return cause.getMessage() != null ? cause.getMessage() : cause.toString();
    }

    /** The consumer went: a session it still has is freed, as in Perfetto (without one, nothing happens). */
    @Override
    public void unbound() {
        endpoint.freeBuffers();
    }
}
