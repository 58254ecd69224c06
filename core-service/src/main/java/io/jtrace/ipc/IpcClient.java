package io.jtrace.ipc;

import com.google.protobuf.MessageLite;
import io.jtrace.protos.IPCFrame;
import io.jtrace.service.ProcessIdentity;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The client end of Perfetto's IPC: connects to an {@link IpcHost}'s socket, binds services by name and
 * calls their methods.
 *
 * <p>Threads: callers on any thread write requests; a lock makes taking the next request id and writing
 * the frame one step, so ids increase in the order frames reach the socket (blocking writes: the client
 * is the one waiting for its host). One daemon reader thread reads replies and calls the
 * {@link ReplyHandler}s, in order. When the connection ends (the host closes it, an I/O error, an
 * oversize frame from the host, or {@link #close}) the reader fails every call still waiting with
 * "connection closed" and then runs {@code onDisconnect}, once.
 */
public final class IpcClient implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(IpcClient.class);

    /** A request waiting for its reply; reader thread and callers share the map, only the reader completes. */
    private sealed interface Pending permits PendingBind, PendingCall {}

    private record PendingBind(String serviceName, CompletableFuture<ServiceProxy> result) implements Pending {}

    private record PendingCall(String method, ReplyHandler handler) implements Pending {}

    private final Path socketPath;
    private final SocketChannel channel;
    private final Runnable onDisconnect;
    private final Map<Long, Pending> pending = new ConcurrentHashMap<>();
    private final Object writeLock = new Object();
    /** Guarded by {@link #writeLock}. */
    private long lastRequestId;
    /** Written under {@link #writeLock}, so a request is either registered before the reader drains, or refused. */
    private volatile boolean connected = true;
    private final AtomicBoolean closeCalled = new AtomicBoolean();
    private final Thread reader;

    private IpcClient(Path socketPath, SocketChannel channel, Runnable onDisconnect) {
        this.socketPath = socketPath;
        this.channel = channel;
        this.onDisconnect = onDisconnect;
        this.reader = new Thread(this::readLoop, "jtrace-ipc-client-" + socketPath.getFileName());
        reader.setDaemon(true);
    }

    /**
     * Connects to the host listening on {@code socketPath} and tells it this process's pid
     * ({@code SetPeerIdentity}, which the host checks against {@code /proc}).
     *
     * @param onDisconnect runs once on the reader thread when the connection ends, after every waiting call
     *     has failed; may be null
     */
    public static IpcClient connect(Path socketPath, Runnable onDisconnect) throws IOException {
        SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX);
        try {
            channel.connect(UnixDomainSocketAddress.of(socketPath));
        } catch (IOException e) {
            channel.close();
            throw new IOException("cannot connect to " + socketPath + ": " + e.getMessage(), e);
        }
        IpcClient client = new IpcClient(socketPath, channel, onDisconnect);
        IPCFrame.Builder identity = IPCFrame.newBuilder()
                .setSetPeerIdentity(IPCFrame.SetPeerIdentity.newBuilder().setPid(ProcessIdentity.pid()));
        try {
            if (!client.send(identity, null)) {
                channel.close();
                throw new IOException("cannot connect to " + socketPath + ": the host closed the connection");
            }
        } catch (FrameEncoder.FrameTooLargeException e) {
            throw new IllegalStateException("a SetPeerIdentity frame cannot be over the limit", e);
        }
        client.reader.start();
        return client;
    }

    /**
     * Binds the host's service {@code serviceName}. The future fails with an {@link IOException} saying so
     * when the host has no such service or the connection closes first.
     */
    public CompletableFuture<ServiceProxy> bind(String serviceName) {
        CompletableFuture<ServiceProxy> result = new CompletableFuture<>();
        IPCFrame.Builder frame = IPCFrame.newBuilder()
                .setMsgBindService(IPCFrame.BindService.newBuilder().setServiceName(serviceName));
        try {
            if (!send(frame, new PendingBind(serviceName, result))) {
                result.completeExceptionally(new IOException("cannot bind " + serviceName + ": connection closed"));
            }
        } catch (FrameEncoder.FrameTooLargeException e) {
            result.completeExceptionally(new IOException("cannot bind " + serviceName + ": " + e.getMessage(), e));
        }
        return result;
    }

    /** Whether the connection is still open; false once the reader has seen it end. */
    public boolean isConnected() {
        return connected;
    }

    /**
     * Closes the connection; waiting calls fail with "connection closed" and {@code onDisconnect} runs.
     * Waits for that unless called on the reader thread (from a handler). Idempotent.
     */
    @Override
    public void close() {
        if (!closeCalled.compareAndSet(false, true)) {
            return;
        }
        closeQuietly(); // Ends the reader's blocking read, which then fails what waits.
        if (Thread.currentThread() == reader) {
            return;
        }
        boolean interrupted = false;
        while (reader.isAlive()) {
            try {
                reader.join();
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** Called by {@link BoundService}: one call of method {@code methodId} of service {@code serviceId}. */
    void invoke(int serviceId, int methodId, String method, MessageLite args, ReplyHandler handler) {
        IPCFrame.InvokeMethod.Builder call = IPCFrame.InvokeMethod.newBuilder()
                .setServiceId(serviceId)
                .setMethodId(methodId)
                .setArgsProto(args.toByteString());
        if (handler == null) {
            call.setDropReply(true);
        }
        String failure;
        try {
            if (send(IPCFrame.newBuilder().setMsgInvokeMethod(call), handler == null ? null : new PendingCall(method, handler))) {
                return;
            }
            failure = "connection closed";
        } catch (FrameEncoder.FrameTooLargeException e) {
            failure = "arguments of " + method + " not sent: " + e.getMessage();
        }
        if (handler != null) {
            handler.onFailure(failure);
        } else {
            LOG.debug("{} (no reply wanted) not sent: {}", method, failure);
        }
    }

    /**
     * Gives {@code frame} the next request id, registers {@code waiting} under it and writes the frame.
     *
     * @return false when the connection is closed (then nothing was registered)
     */
    private boolean send(IPCFrame.Builder frame, Pending waiting) throws FrameEncoder.FrameTooLargeException {
        synchronized (writeLock) {
            if (!connected) {
                return false;
            }
            long requestId = lastRequestId + 1;
            ByteBuffer bytes = FrameEncoder.encode(frame.setRequestId(requestId).build());
            lastRequestId = requestId;
            if (waiting != null) {
                // Registered before writing: the reply can arrive before write() returns.
                pending.put(requestId, waiting);
            }
            try {
                while (bytes.hasRemaining()) {
                    channel.write(bytes);
                }
                return true;
            } catch (IOException e) {
                LOG.debug("write to {} failed: {}", socketPath, e.toString());
                pending.remove(requestId);
                closeQuietly(); // The reader sees the end and fails the rest.
                return false;
            }
        }
    }

    private void readLoop() {
        FrameDecoder decoder = new FrameDecoder();
        FrameDecoder.Sink sink = new FrameDecoder.Sink() {
            @Override
            public void frame(IPCFrame frame) {
                dispatch(frame);
            }

            @Override
            public void malformed(String reason) {
                LOG.warn("frame from {} dropped: {}", socketPath, reason);
            }
        };
        try {
            while (true) {
                if (channel.read(decoder.receiveBuffer()) < 0) {
                    LOG.debug("host {} closed the connection", socketPath);
                    break;
                }
                if (!decoder.decode(sink)) {
                    LOG.warn("host {} sent a frame of {} bytes, over the limit: disconnecting", socketPath,
                            decoder.oversizeLength());
                    break;
                }
            }
        } catch (IOException e) {
            if (!closeCalled.get()) {
                LOG.debug("connection to {} failed: {}", socketPath, e.toString());
            }
        } finally {
            disconnected();
        }
    }

    private void dispatch(IPCFrame frame) {
        long requestId = frame.getRequestId();
        Pending waiting = pending.get(requestId);
        if (waiting == null) {
            LOG.debug("reply from {} to request {}, which waits for nothing: dropped", socketPath, requestId);
            return;
        }
        try {
            if (waiting instanceof PendingBind bind) {
                pending.remove(requestId);
                bound(bind, frame);
            } else if (waiting instanceof PendingCall call) {
                replied(requestId, call, frame);
            }
        } catch (RuntimeException e) {
            // A handler's bug must not end the connection's reader.
            LOG.warn("reply handler for request {} threw", requestId, e);
        }
    }

    private void bound(PendingBind bind, IPCFrame frame) {
        String name = bind.serviceName();
        if (frame.hasMsgBindServiceReply() && frame.getMsgBindServiceReply().getSuccess()) {
            IPCFrame.BindServiceReply reply = frame.getMsgBindServiceReply();
            Map<String, Integer> methodIds = new HashMap<>();
            for (IPCFrame.BindServiceReply.MethodInfo method : reply.getMethodsList()) {
                methodIds.put(method.getName(), method.getId());
            }
            bind.result().complete(new BoundService(this, name, reply.getServiceId(), methodIds));
        } else if (frame.hasMsgRequestError()) {
            bind.result().completeExceptionally(new IOException(
                    "cannot bind " + name + ": host " + socketPath + " answered: " + frame.getMsgRequestError().getError()));
        } else {
            bind.result().completeExceptionally(new IOException("host " + socketPath + " has no service " + name));
        }
    }

    private void replied(long requestId, PendingCall call, IPCFrame frame) {
        if (frame.hasMsgInvokeMethodReply()) {
            IPCFrame.InvokeMethodReply reply = frame.getMsgInvokeMethodReply();
            if (!reply.getSuccess()) {
                pending.remove(requestId);
                call.handler().onFailure(call.method() + " failed on the host");
                return;
            }
            if (!reply.getHasMore()) {
                pending.remove(requestId);
            }
            call.handler().onReply(reply.getReplyProto(), reply.getHasMore());
        } else {
            pending.remove(requestId);
            call.handler().onFailure(frame.hasMsgRequestError()
                    ? call.method() + " refused by the host: " + frame.getMsgRequestError().getError()
                    : call.method() + " got a reply that is not an InvokeMethodReply");
        }
    }

    /** Reader thread, once, as it ends: no request is accepted from now on; what waits fails. */
    private void disconnected() {
        // Closed before taking the lock: a caller blocked writing to a host that reads no more holds the
        // lock, and only closing the channel ends its write (it then fails its call as closed).
        closeQuietly();
        synchronized (writeLock) {
            connected = false;
        }
        for (Long requestId : pending.keySet()) {
            Pending waiting = pending.remove(requestId);
            try {
                if (waiting instanceof PendingBind bind) {
                    bind.result().completeExceptionally(new IOException("cannot bind " + bind.serviceName() + ": connection closed"));
                } else if (waiting instanceof PendingCall call) {
                    call.handler().onFailure("connection closed");
                }
            } catch (RuntimeException e) {
                LOG.warn("reply handler for request {} threw", requestId, e);
            }
        }
        if (onDisconnect != null) {
            try {
                onDisconnect.run();
            } catch (RuntimeException e) {
                LOG.warn("onDisconnect of the connection to {} threw", socketPath, e);
            }
        }
    }

    private void closeQuietly() {
        try {
            channel.close();
        } catch (IOException e) {
            LOG.debug("close of {}: {}", socketPath, e.toString());
        }
    }
}
