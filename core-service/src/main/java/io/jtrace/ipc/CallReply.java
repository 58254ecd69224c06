package io.jtrace.ipc;

import com.google.protobuf.ByteString;
import com.google.protobuf.MessageLite;
import io.jtrace.protos.IPCFrame;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link Reply} of one call. Any thread may answer; each reply is encoded on the answering thread and
 * queued on the connection's {@link Outbox}, which the I/O thread writes out. {@link #finished} makes the
 * last reply happen once: after it (or from the start, for {@code drop_reply}) everything is ignored. A
 * {@link #stream} racing a {@link #complete} on another thread may be queued after the last reply; the
 * client drops replies to a call it has finished, so it never sees one.
 */
final class CallReply implements Reply {
    private static final Logger LOG = LoggerFactory.getLogger(CallReply.class);

    private final HostConnection connection;
    private final long requestId;
    private final String method;
    private final AtomicBoolean finished;

    CallReply(HostConnection connection, long requestId, String method, boolean dropReply) {
        this.connection = connection;
        this.requestId = requestId;
        this.method = method;
        this.finished = new AtomicBoolean(dropReply);
    }

    @Override
    public void stream(MessageLite message) {
        if (!finished.get()) {
            send(message, true);
        }
    }

    @Override
    public void complete(MessageLite message) {
        if (finished.compareAndSet(false, true)) {
            send(message, false);
        }
    }

    @Override
    public void fail(String reason) {
        if (finished.compareAndSet(false, true)) {
            connection.failCall(requestId, method + " failed: " + reason);
        }
    }

    @Override
    public long pendingBytes() {
        return connection.pendingBytes();
    }

    private void send(MessageLite message, boolean hasMore) {
        ByteString bytes = message.toByteString();
        IPCFrame frame = IPCFrame.newBuilder()
                .setRequestId(requestId)
                .setMsgInvokeMethodReply(IPCFrame.InvokeMethodReply.newBuilder()
                        .setSuccess(true)
                        .setHasMore(hasMore)
                        .setReplyProto(bytes))
                .build();
        try {
            connection.send(frame);
        } catch (FrameEncoder.FrameTooLargeException e) {
            // Sending it would make the client close the connection; the call fails instead.
            finished.set(true);
            LOG.warn("connection {}: reply of {} to request {} not sent: {}", connection.id(), method, requestId, e.getMessage());
            connection.failCall(requestId, method + " replied " + bytes.size() + " bytes, over the frame limit");
        }
    }
}
