package io.jtrace.ipc;

import com.google.protobuf.ByteString;
import com.google.protobuf.MessageLite;
import io.jtrace.protos.IPCFrame;
import java.nio.ByteBuffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link Reply} of one call. Any thread may answer; each reply is encoded on the answering thread and
 * queued on the connection's {@link Outbox}, which the I/O thread writes out.
 *
 * <p>Deciding whether a reply may still go and queueing it are one step under this object's monitor, so
 * the last reply (or the failure) is the last frame of the call ever queued: a {@link #stream} racing a
 * {@link #complete} on another thread is either queued before it or dropped. Encoding happens before the
 * monitor is taken, so a slow message never holds up another thread's answer.
 */
final class CallReply implements Reply {
    private static final Logger LOG = LoggerFactory.getLogger(CallReply.class);

    private final HostConnection connection;
    private final long requestId;
    private final String method;
    /** The client asked for no reply ({@code drop_reply}): nothing is ever queued; a failure is only counted. */
    private final boolean dropReply;
    /** Guarded by {@code this}: the last reply or the failure has been queued. */
    private boolean finished;

    CallReply(HostConnection connection, long requestId, String method, boolean dropReply) {
        this.connection = connection;
        this.requestId = requestId;
        this.method = method;
        this.dropReply = dropReply;
    }

    @Override
    public void stream(MessageLite message) {
        reply(message, true);
    }

    @Override
    public void complete(MessageLite message) {
        reply(message, false);
    }

    @Override
    public synchronized void fail(String reason) {
        if (!finished) {
            finished = true;
            connection.failCall(requestId, dropReply, method + " failed: " + reason);
        }
    }

    @Override
    public long pendingBytes() {
        return connection.pendingBytes();
    }

    private void reply(MessageLite message, boolean hasMore) {
        if (dropReply) {
            return;
        }
        ByteString bytes = message.toByteString();
        ByteBuffer frame;
        try {
            frame = FrameEncoder.encode(IPCFrame.newBuilder()
                    .setRequestId(requestId)
                    .setMsgInvokeMethodReply(IPCFrame.InvokeMethodReply.newBuilder()
                            .setSuccess(true)
                            .setHasMore(hasMore)
                            .setReplyProto(bytes))
                    .build());
        } catch (FrameEncoder.FrameTooLargeException e) {
            // Sending it would make the client close the connection; the call fails instead.
            LOG.warn("connection {}: reply of {} to request {} not sent: {}", connection.id(), method, requestId, e.getMessage());
            fail("replied " + bytes.size() + " bytes, over the frame limit");
            return;
        }
        synchronized (this) {
            if (!finished) {
                finished = !hasMore;
                connection.send(frame);
            }
        }
    }
}
