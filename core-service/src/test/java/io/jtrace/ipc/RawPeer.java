package io.jtrace.ipc;

import io.jtrace.protos.IPCFrame;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Queue;

/** A peer that writes whatever bytes a test wants and reads the host's frames raw, with a timeout. */
final class RawPeer implements AutoCloseable {
    private static final long TIMEOUT_MS = 10_000;

    private final SocketChannel channel;
    private final Selector selector;
    private final FrameDecoder decoder = new FrameDecoder();
    private final Queue<IPCFrame> frames = new ArrayDeque<>();
    private boolean endOfStream;

    RawPeer(Path socket) throws IOException {
        channel = SocketChannel.open(StandardProtocolFamily.UNIX);
        channel.connect(UnixDomainSocketAddress.of(socket));
        channel.configureBlocking(false);
        selector = Selector.open();
        channel.register(selector, SelectionKey.OP_READ);
    }

    static ByteBuffer encode(IPCFrame frame) {
        try {
            return FrameEncoder.encode(frame);
        } catch (FrameEncoder.FrameTooLargeException e) {
            throw new AssertionError(e);
        }
    }

    void send(IPCFrame frame) throws IOException {
        write(encode(frame));
    }

    void write(byte[] bytes) throws IOException {
        write(ByteBuffer.wrap(bytes));
    }

    void write(ByteBuffer bytes) throws IOException {
        long deadline = System.currentTimeMillis() + TIMEOUT_MS;
        while (bytes.hasRemaining()) {
            if (channel.write(bytes) == 0) {
                if (System.currentTimeMillis() > deadline) {
                    throw new IOException("host took no bytes for " + TIMEOUT_MS + " ms");
                }
                Thread.onSpinWait();
            }
        }
    }

    /** The host's next frame; fails the test after the timeout or if the host closed instead. */
    IPCFrame read() throws IOException {
        long deadline = System.currentTimeMillis() + TIMEOUT_MS;
        while (frames.isEmpty()) {
            if (endOfStream) {
                throw new IOException("host closed the connection instead of sending a frame");
            }
            long left = deadline - System.currentTimeMillis();
            if (left <= 0) {
                throw new IOException("no frame from the host in " + TIMEOUT_MS + " ms");
            }
            pump(left);
        }
        return frames.poll();
    }

    /** Whether the host closes this connection within the timeout (frames it sends meanwhile are kept). */
    boolean closedByHost() throws IOException {
        long deadline = System.currentTimeMillis() + TIMEOUT_MS;
        while (!endOfStream) {
            long left = deadline - System.currentTimeMillis();
            if (left <= 0) {
                return false;
            }
            pump(left);
        }
        return true;
    }

    /** Reads whatever the host has sent without waiting; false once the host has closed the connection. */
    boolean drainAvailable() throws IOException {
        while (!endOfStream && selector.selectNow() > 0) {
            pump(0);
        }
        frames.clear();
        return !endOfStream;
    }

    private void pump(long timeoutMs) throws IOException {
        if (timeoutMs > 0) {
            selector.select(timeoutMs);
        }
        selector.selectedKeys().clear();
        int read;
        try {
            read = channel.read(decoder.receiveBuffer());
        } catch (IOException reset) {
            endOfStream = true;
            return;
        }
        if (read < 0) {
            endOfStream = true;
        } else if (read > 0 && !decoder.decode(new FrameDecoder.Sink() {
            @Override
            public void frame(IPCFrame frame) {
                frames.add(frame);
            }

            @Override
            public void malformed(String reason) {
                throw new AssertionError("the host sent a malformed frame: " + reason);
            }
        })) {
            throw new AssertionError("the host sent an oversize frame of " + decoder.oversizeLength());
        }
    }

    void closeOutput() throws IOException {
        channel.shutdownOutput();
    }

    @Override
    public void close() throws IOException {
        selector.close();
        channel.close();
    }
}
