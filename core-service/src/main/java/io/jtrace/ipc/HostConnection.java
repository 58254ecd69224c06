package io.jtrace.ipc;

import io.jtrace.protos.IPCFrame;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One connection on the host: its decoder, the services bound on it, who the peer is, and what it has
 * yet to send. It knows nothing of sockets: the host's I/O loop gives it bytes ({@link #receiveBuffer},
 * {@link #received}) and writes its {@link #outbox()}, and a test can do both without a socket.
 *
 * <p>Threads: decoding, dispatch and the bindings array belong to the I/O thread. Services answer from
 * any thread through {@link CallReply} into the {@link Outbox}; {@link #close} may come from any thread
 * too. Both only record what is wanted and tell the I/O loop through {@link Attention}, which does the
 * writing and closing on its own thread.
 */
final class HostConnection implements IpcConnection, FrameDecoder.Sink {
    private static final Logger LOG = LoggerFactory.getLogger(HostConnection.class);

    /** How a connection tells its I/O loop that it has frames to write or wants to close. Any thread. */
    interface Attention {
        void needed(HostConnection connection);
    }

    private final long id;
    private final String socketUser;
    private final ServiceTable services;
    private final PeerIdentityResolver identities;
    private final HostCounters counters;
    private final Attention attention;
    private final FrameDecoder decoder = new FrameDecoder();
    private final Outbox outbox = new Outbox();
    /** Set by the I/O loop: whether this connection is already in its list of connections to look at. */
    final AtomicBoolean attentionScheduled = new AtomicBoolean();
    /** The first close reason; set once, from any thread. */
    private final AtomicReference<String> closeReason = new AtomicReference<>();

    // I/O thread only.
    private final ServiceBinding[] bindings;
    private boolean firstFrameHandled;

    /** Written once by the I/O thread (at the first frame), read by services on any thread. */
    private volatile PeerIdentity peer;

    HostConnection(long id, String socketUser, ServiceTable services, PeerIdentityResolver identities,
            HostCounters counters, Attention attention) {
        this.id = id;
        this.socketUser = socketUser;
        this.services = services;
        this.identities = identities;
        this.counters = counters;
        this.attention = attention;
        this.bindings = new ServiceBinding[services.size()];
        this.peer = identities.withoutPid(socketUser);
    }

    @Override
    public long id() {
        return id;
    }

    @Override
    public PeerIdentity peer() {
        return peer;
    }

    @Override
    public void close(String reason) {
        if (closeReason.compareAndSet(null, reason)) {
            attention.needed(this);
        }
    }

    /** Why the connection is closing, or null while it is open. */
    String closeReason() {
        return closeReason.get();
    }

    Outbox outbox() {
        return outbox;
    }

    long pendingBytes() {
        return outbox.pendingBytes();
    }

    /** I/O thread: where the socket's next bytes go. */
    ByteBuffer receiveBuffer() {
        return decoder.receiveBuffer();
    }

    /**
     * I/O thread: decodes and handles the frames completed by the bytes just put in {@link #receiveBuffer()}.
     *
     * @return false when a frame was oversize: the caller closes the connection
     */
    boolean received() {
        return decoder.decode(this) || oversize();
    }

    /** I/O thread: as {@link #received()}, for bytes that are not in the receive buffer (a test's stream). */
    boolean receive(ByteBuffer bytes) {
        return decoder.feed(bytes, this) || oversize();
    }

    private boolean oversize() {
        counters.oversizeCloses.incrementAndGet();
        close("frame of " + decoder.oversizeLength() + " bytes is over the limit of " + FrameDecoder.MAX_PAYLOAD);
        return false;
    }

    @Override
    public void malformed(String reason) {
        counters.framesMalformed.incrementAndGet();
        LOG.debug("connection {}: frame dropped: {}", id, reason);
    }

    @Override
    public void frame(IPCFrame frame) {
        if (closeReason.get() != null) {
            return; // Closing: the rest of this read is not acted on.
        }
        counters.framesReceived.incrementAndGet();
        boolean first = !firstFrameHandled;
        firstFrameHandled = true;
        switch (frame.getMsgCase()) {
            case MSG_BIND_SERVICE -> bind(frame.getRequestId(), frame.getMsgBindService().getServiceName());
            case MSG_INVOKE_METHOD -> invoke(frame.getRequestId(), frame.getMsgInvokeMethod());
            case SET_PEER_IDENTITY -> setPeerIdentity(first, frame.getSetPeerIdentity());
            default -> requestError(frame.getRequestId(), "unknown request");
        }
    }

    /** Perfetto's SetPeerIdentity carries a pid; it counts only as the first frame, and only if /proc agrees. */
    private void setPeerIdentity(boolean first, IPCFrame.SetPeerIdentity claim) {
        if (!first) {
            counters.ignoredIdentityClaims.incrementAndGet();
            LOG.debug("connection {}: SetPeerIdentity after other frames ignored", id);
            return;
        }
        peer = identities.withClaimedPid(socketUser, claim.getPid());
    }

    private void bind(long requestId, String name) {
        int serviceId = services.idOf(name);
        IPCFrame.BindServiceReply reply = IPCFrame.BindServiceReply.newBuilder().setSuccess(false).build();
        if (serviceId == 0) {
            LOG.debug("connection {}: no service {} to bind", id, name);
        } else if (bindings[serviceId - 1] != null || createBinding(serviceId)) {
            reply = services.bindReply(serviceId);
        }
        sendControl(IPCFrame.newBuilder().setRequestId(requestId).setMsgBindServiceReply(reply).build());
    }

    private boolean createBinding(int serviceId) {
        IpcServiceDefinition definition = services.definition(serviceId);
        try {
            ServiceBinding binding = definition.bind(this);
            if (binding == null) {
                LOG.warn("connection {}: service {} gave no binding", id, definition.name());
                return false;
            }
            bindings[serviceId - 1] = binding;
            return true;
        } catch (RuntimeException e) {
            LOG.warn("connection {}: binding service {} threw", id, definition.name(), e);
            return false;
        }
    }

    /** Unknown service or method: Perfetto answers {@code InvokeMethodReply{success = false}}, and so do we. */
    private void invoke(long requestId, IPCFrame.InvokeMethod call) {
        int serviceId = call.getServiceId();
        boolean dropReply = call.getDropReply();
        if (!services.isValid(serviceId) || bindings[serviceId - 1] == null) {
            failCall(requestId, dropReply, "service id " + Integer.toUnsignedString(serviceId) + " is not bound");
            return;
        }
        String method = services.method(serviceId, call.getMethodId());
        if (method == null) {
            failCall(requestId, dropReply, "service " + services.definition(serviceId).name() + " has no method id "
                    + Integer.toUnsignedString(call.getMethodId()));
            return;
        }
        CallReply reply = new CallReply(this, requestId, method, dropReply);
        try {
            bindings[serviceId - 1].invoke(method, call.getArgsProto(), reply);
        } catch (RuntimeException e) {
            // A service's bug must not reach the I/O loop: this call fails, the connection goes on.
            LOG.warn("connection {}: {} threw", id, method, e);
            reply.fail("threw " + e);
        }
    }

    /**
     * Any thread: the call {@code requestId} failed. It is counted, and answered with {@code success = false}
     * unless the client wanted no reply ({@code dropReply}); the reason stays here.
     */
    void failCall(long requestId, boolean dropReply, String reason) {
        counters.failedCalls.incrementAndGet();
        if (dropReply) {
            LOG.debug("connection {}: request {} (no reply wanted) failed: {}", id, requestId, reason);
            return;
        }
        LOG.debug("connection {}: request {} failed: {}", id, requestId, reason);
        sendControl(IPCFrame.newBuilder()
                .setRequestId(requestId)
                .setMsgInvokeMethodReply(IPCFrame.InvokeMethodReply.newBuilder().setSuccess(false))
                .build());
    }

    private void requestError(long requestId, String error) {
        counters.requestErrors.incrementAndGet();
        LOG.debug("connection {}: request {}: {}", id, requestId, error);
        sendControl(IPCFrame.newBuilder()
                .setRequestId(requestId)
                .setMsgRequestError(IPCFrame.RequestError.newBuilder().setError(error))
                .build());
    }

    /** Sends a frame the host builds itself, which is always far below the limit. */
    private void sendControl(IPCFrame frame) {
        try {
            send(FrameEncoder.encode(frame));
        } catch (FrameEncoder.FrameTooLargeException e) {
            throw new IllegalStateException("a control frame cannot be over the limit", e);
        }
    }

    /** Any thread: queues an encoded frame and has the I/O loop write it. Dropped once the connection closed. */
    void send(ByteBuffer frame) {
        if (outbox.add(frame)) {
            counters.framesSent.incrementAndGet();
            attention.needed(this);
        }
    }

    /**
     * I/O thread, when the connection has closed: drops what was queued and tells every bound service,
     * once (a binding is forgotten as it is told, so a second call tells no one). A service that throws
     * here is logged; the others are still told.
     */
    void unbindAll() {
        outbox.discard();
        for (int i = 0; i < bindings.length; i++) {
            ServiceBinding binding = bindings[i];
            if (binding == null) {
                continue;
            }
            bindings[i] = null;
            try {
                binding.unbound();
            } catch (RuntimeException e) {
                LOG.warn("connection {}: unbinding {} threw", id, services.definition(i + 1).name(), e);
            }
        }
    }
}
