package io.jtrace.ipc;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.WritableByteChannel;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The frames one connection has yet to send. Any thread adds (a service replying later, from its own
 * thread); only the host's I/O thread writes them out, when the socket takes them, so a slow peer never
 * blocks a service. A lock-free queue is the only thing the two sides share: a frame is encoded by the
 * thread that adds it, and the queue's add/poll order its bytes before their write.
 */
final class Outbox {
    private final ConcurrentLinkedQueue<ByteBuffer> frames = new ConcurrentLinkedQueue<>();
    private final AtomicLong pendingBytes = new AtomicLong();
    /** Set once the connection closed: later frames are dropped, not queued for nobody. */
    private volatile boolean discarded;

    /**
     * Queues {@code bytes}, a frame {@link FrameEncoder#encode encoded} by the caller.
     *
     * @return false when the connection has closed and the frame was dropped
     */
    boolean add(ByteBuffer bytes) {
        if (discarded) {
            return false;
        }
        pendingBytes.addAndGet(bytes.remaining());
        frames.add(bytes);
        return true;
    }

    /**
     * Writes queued frames to {@code channel} until it takes no more or none are left. I/O thread only.
     *
     * @return true when everything queued was written
     */
    boolean writeTo(WritableByteChannel channel) throws IOException {
        ByteBuffer head;
        while ((head = frames.peek()) != null) {
            int before = head.remaining();
            channel.write(head);
            pendingBytes.addAndGet(head.remaining() - before);
            if (head.hasRemaining()) {
                return false;
            }
            frames.poll();
        }
        return true;
    }

    /** Removes the next queued frame, or returns null: for a test that plays the socket. I/O thread only. */
    ByteBuffer poll() {
        ByteBuffer head = frames.poll();
        if (head != null) {
            pendingBytes.addAndGet(-head.remaining());
        }
        return head;
    }

    long pendingBytes() {
        return pendingBytes.get();
    }

    /** The connection closed: drops what is queued and everything added later. */
    void discard() {
        discarded = true;
        frames.clear();
        pendingBytes.set(0);
    }
}
