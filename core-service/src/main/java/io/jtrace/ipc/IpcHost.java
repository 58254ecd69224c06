package io.jtrace.ipc;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import jdk.net.ExtendedSocketOptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves {@link IpcServiceDefinition}s on a UNIX domain socket with Perfetto's IPC protocol.
 *
 * <p>Threads: one daemon I/O thread owns the selector, every socket and every connection's decoding and
 * dispatch; it never blocks on a peer (non-blocking sockets, writes only when the socket takes them).
 * Services are called on it and answer from any thread: a reply is encoded by the answering thread, put
 * on its connection's lock-free {@link Outbox}, and the connection is put (once, guarded by a flag) on
 * {@link #attention}, a lock-free queue the I/O thread drains after every select; a thread other than
 * the I/O thread also wakes the selector. {@link IpcConnection#close} travels the same way.
 *
 * <p>Nothing a peer sends stops the I/O thread: a malformed frame is dropped, an oversize frame or an
 * I/O error closes that connection only, and a service that throws fails that call only.
 */
public final class IpcHost implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(IpcHost.class);
    /**
     * A connection with this many bytes queued and not yet taken by its peer is not read from until they
     * are: a peer that sends calls but does not read the replies cannot make the host buffer without end.
     */
    static final long READ_PAUSE_BYTES = 1 << 20;
    /**
     * How long the host stops accepting after {@code accept} failed (e.g. out of file descriptors): the
     * connection stays in the backlog, so the selector would report it again at once and the I/O thread
     * would spin, logging each time.
     */
    static final long ACCEPT_PAUSE_MILLIS = 100;

    private final String name;
    private final ServiceTable services;
    private final PeerIdentityResolver identities;
    private final HostCounters counters = new HostCounters();
    private final ServerSocketChannel server;
    private final SocketFile socketFile;
    private final Selector selector;
    private final SelectionKey serverKey;
    /** Keys of connections with frames to write or a close to carry out; drained by the I/O thread. */
    private final ConcurrentLinkedQueue<SelectionKey> attention = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean closing = new AtomicBoolean();
    private final Thread ioThread;
    /** I/O thread only. */
    private long lastConnectionId;
    /** I/O thread only: accepting is paused since {@link #acceptPausedAt} ({@code System.nanoTime()}). */
    private boolean acceptPaused;
    private long acceptPausedAt;

    private IpcHost(String name, ServiceTable services, PeerIdentityResolver identities, Path socketPath) throws IOException {
        this.name = name;
        this.services = services;
        this.identities = identities;
        this.server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        Selector opened = null;
        try {
            this.socketFile = SocketFile.bind(server, socketPath);
            server.configureBlocking(false);
            opened = Selector.open();
            this.serverKey = server.register(opened, SelectionKey.OP_ACCEPT);
        } catch (IOException | RuntimeException e) {
            if (opened != null) {
                opened.close();
            }
            server.close();
            throw e;
        }
        this.selector = opened;
        this.ioThread = new Thread(this::run, "jtrace-ipc-" + name);
        ioThread.setDaemon(true);
    }

    /** Listens on {@code socketPath}; see {@link #listen(Path, List, String)}. */
    public static IpcHost listen(Path socketPath, List<IpcServiceDefinition> services) throws IOException {
        return listen(socketPath, services, String.valueOf(socketPath.getFileName()));
    }

    /**
     * Listens on {@code socketPath} (its directory must exist and be the owner's only, see
     * {@link SocketPaths#ensurePrivateDirectory}), offering {@code services}, whose ids are their positions
     * plus one. The socket file gets mode 0600. A socket file left by a dead host is replaced.
     *
     * @param name names the I/O thread and log lines
     * @throws IOException when the socket cannot be bound, or a live host already listens there
     *     ("already in use"), or the path is a file that is not a socket
     */
    public static IpcHost listen(Path socketPath, List<IpcServiceDefinition> services, String name) throws IOException {
        return listen(socketPath, services, name, PeerIdentityResolver.system());
    }

    static IpcHost listen(Path socketPath, List<IpcServiceDefinition> services, String name, PeerIdentityResolver identities)
            throws IOException {
        IpcHost host = new IpcHost(name, new ServiceTable(services), identities, socketPath);
        host.ioThread.start();
        LOG.debug("IPC host {} listening on {}", name, socketPath);
        return host;
    }

    public Path socketPath() {
        return socketFile.path();
    }

    public IpcHostStats stats() {
        return counters.snapshot();
    }

    /**
     * Stops listening, closes every connection (each bound service is told through
     * {@link ServiceBinding#unbound()}) and removes the socket file. Waits for the I/O thread unless called
     * on it (by a service): then it returns at once, and the host shuts down when the I/O thread has
     * handled what the current {@code select} reported. Idempotent.
     */
    @Override
    public void close() {
        if (!closing.compareAndSet(false, true)) {
            return;
        }
        selector.wakeup();
        if (Thread.currentThread() == ioThread) {
            return; // The loop ends after this round; its finally block shuts down.
        }
        boolean interrupted = false;
        while (ioThread.isAlive()) {
            try {
                ioThread.join();
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    private void run() {
        try {
            while (!closing.get()) {
                selector.select(acceptPaused ? ACCEPT_PAUSE_MILLIS : 0);
                resumeAcceptingWhenDue();
                for (SelectionKey key : selector.selectedKeys()) {
                    handle(key);
                }
                selector.selectedKeys().clear();
                handleAttention();
            }
        } catch (IOException | RuntimeException e) {
            LOG.error("IPC host {}: I/O loop failed; closing every connection", name, e);
        } finally {
            shutdown();
        }
    }

    private void handle(SelectionKey key) {
        if (!key.isValid()) {
            return;
        }
        if (key.channel() == server) {
            acceptAll();
            return;
        }
        HostConnection connection = (HostConnection) key.attachment();
        try {
            if (key.isReadable()) {
                read(key, connection);
            }
            if (key.isValid() && key.isWritable()) {
                flush(key, connection);
            }
        } catch (IOException e) {
            terminate(key, connection, "I/O error: " + e.getMessage());
        } catch (RuntimeException e) {
            LOG.error("IPC host {}: connection {} failed", name, connection.id(), e);
            terminate(key, connection, "internal error: " + e);
        }
    }

    private void acceptAll() {
        while (true) {
            SocketChannel channel;
            try {
                channel = server.accept();
                if (channel == null) {
                    return;
                }
            } catch (IOException e) {
                LOG.warn("IPC host {}: accept failed, accepting again in {} ms: {}", name, ACCEPT_PAUSE_MILLIS, e.toString());
                serverKey.interestOps(0);
                acceptPaused = true;
                acceptPausedAt = System.nanoTime();
                return;
            }
            try {
                channel.configureBlocking(false);
                String user = peerUser(channel);
                SelectionKey key = channel.register(selector, SelectionKey.OP_READ);
                HostConnection connection = new HostConnection(++lastConnectionId, user, services, identities, counters,
                        c -> requestAttention(key, c));
                key.attach(connection);
                counters.connectionsAccepted.incrementAndGet();
                LOG.debug("IPC host {}: connection {} from {}", name, connection.id(), user);
            } catch (IOException | RuntimeException e) {
                LOG.warn("IPC host {}: dropping a new connection: {}", name, e.toString());
                closeQuietly(channel);
            }
        }
    }

    private void resumeAcceptingWhenDue() {
        if (acceptPaused && System.nanoTime() - acceptPausedAt >= TimeUnit.MILLISECONDS.toNanos(ACCEPT_PAUSE_MILLIS)) {
            acceptPaused = false;
            serverKey.interestOps(SelectionKey.OP_ACCEPT);
        }
    }

    /** The peer's user name as the kernel reports it; the empty name (uid -1) when it cannot say. */
    private String peerUser(SocketChannel channel) {
        try {
            return channel.getOption(ExtendedSocketOptions.SO_PEERCRED).user().getName();
        } catch (IOException | UnsupportedOperationException e) {
            LOG.warn("IPC host {}: peer credentials unavailable: {}", name, e.toString());
            return "";
        }
    }

    private void read(SelectionKey key, HostConnection connection) throws IOException {
        ByteBuffer buffer = connection.receiveBuffer();
        int read = ((SocketChannel) key.channel()).read(buffer);
        if (read < 0) {
            terminate(key, connection, "peer closed the connection");
        } else if (read > 0 && !connection.received()) {
            terminate(key, connection, connection.closeReason());
        }
    }

    /** Any thread: the connection has frames to write or wants to close. */
    private void requestAttention(SelectionKey key, HostConnection connection) {
        if (connection.attentionScheduled.compareAndSet(false, true)) {
            attention.add(key);
            if (Thread.currentThread() != ioThread) {
                selector.wakeup();
            }
        }
    }

    private void handleAttention() {
        SelectionKey key;
        while ((key = attention.poll()) != null) {
            HostConnection connection = (HostConnection) key.attachment();
            // Cleared before acting: whatever is queued from now on schedules the connection again.
            connection.attentionScheduled.set(false);
            if (!key.isValid()) {
                continue;
            }
            String reason = connection.closeReason();
            try {
                if (reason != null) {
                    // Closed by a service: what it queued before closing is sent if the socket takes it now.
                    connection.outbox().writeTo((SocketChannel) key.channel());
                    terminate(key, connection, reason);
                } else {
                    flush(key, connection);
                }
            } catch (IOException e) {
                terminate(key, connection, reason != null ? reason : "I/O error: " + e.getMessage());
            }
        }
    }

    /** Writes what the socket takes; waits for writability for the rest; stops reading a peer that lags. */
    private void flush(SelectionKey key, HostConnection connection) throws IOException {
        boolean drained = connection.outbox().writeTo((SocketChannel) key.channel());
        int ops = drained ? 0 : SelectionKey.OP_WRITE;
        if (connection.pendingBytes() < READ_PAUSE_BYTES) {
            ops |= SelectionKey.OP_READ;
        }
        if (key.interestOps() != ops) {
            key.interestOps(ops);
        }
    }

    /** Closes one connection, once: its socket, its queue, its bindings. */
    private void terminate(SelectionKey key, HostConnection connection, String reason) {
        if (!key.isValid()) {
            return;
        }
        key.cancel();
        closeQuietly(key.channel());
        connection.close(reason);
        counters.connectionsClosed.incrementAndGet();
        LOG.debug("IPC host {}: connection {} closed: {}", name, connection.id(), connection.closeReason());
        connection.unbindAll();
    }

    private void shutdown() {
        for (SelectionKey key : new ArrayList<>(selector.keys())) {
            if (key.attachment() instanceof HostConnection connection) {
                terminate(key, connection, "host closed");
            }
        }
        closeQuietly(server);
        socketFile.unlink();
        try {
            selector.close();
        } catch (IOException e) {
            LOG.debug("IPC host {}: selector close: {}", name, e.toString());
        }
        LOG.debug("IPC host {} closed", name);
    }

    private static void closeQuietly(java.nio.channels.Channel channel) {
        try {
            channel.close();
        } catch (IOException e) {
            LOG.debug("close: {}", e.toString());
        }
    }
}
