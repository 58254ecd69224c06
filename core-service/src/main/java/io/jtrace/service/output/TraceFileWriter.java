package io.jtrace.service.output;

import io.jtrace.service.buffer.PacketSink;
import io.jtrace.service.buffer.Varints;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.ClosedChannelException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Writes packets as a Perfetto trace file: the serialization of {@code Trace { repeated TracePacket
 * packet = 1; }}, i.e. each packet as field 1 (tag 0x0A, varint length, bytes). Appending records is
 * all it takes, so a file written in periods stays a valid trace at every period's end.
 */
public final class TraceFileWriter implements PacketSink, AutoCloseable {
    private static final int TRACE_PACKET_TAG = (1 << 3) | 2;
    /** Largest frame header: the tag and a 5-byte varint length. */
    private static final int FRAME_HEADER_MAX = 6;
    private static final int BUFFER_SIZE = 256 * 1024;
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle INTS = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);

    /*
     * The service thread is the only writer, so frames are assembled in one buffer and handed to the
     * file in large writes: no lock per packet (a BufferedOutputStream takes one per write call). The
     * buffer is direct memory: the channel writes it as it is, where from a heap array the JDK would
     * first copy every byte into a temporary direct buffer (5 % of the service thread under a flood). A
     * full buffer is written behind (WriteBehind) while the next one fills.
     */
    private final WriteBehind file;
    private ByteBuffer buffer;
    private final int capacity;
    /** A packet's frame header (tag and varint length) before it goes into {@link #buffer}. */
    private final byte[] frameHeader = new byte[FRAME_HEADER_MAX];
    private int buffered;
    private boolean closed;
    private long packets;
    private long bytes;

    public TraceFileWriter(Path file) throws IOException {
        TraceFileChannel channel = TraceFileChannel.open(withParents(file));
        try {
            this.file = new WriteBehind(channel, BUFFER_SIZE);
        } catch (RuntimeException | Error e) {
            // Its buffers could not be had (direct memory): the file is not left open.
            channel.close();
            throw e;
        }
        this.buffer = this.file.firstBuffer();
        this.capacity = buffer.capacity();
    }

    private static Path withParents(Path file) throws IOException {
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        return file;
    }

    @Override
    public void packet(byte[] body, int bodyOffset, int bodyLength, byte[] trailer, int trailerLength) {
        int length = bodyLength + trailerLength;
        try {
            refuseIfClosed();
            if (buffered + FRAME_HEADER_MAX + length > capacity) {
                drain();
            }
            frameHeader[0] = (byte) TRACE_PACKET_TAG;
            int headerLength = Varints.put(frameHeader, 1, length);
            buffer.put(buffered, frameHeader, 0, headerLength);
            int at = buffered + headerLength;
            bytes += at - buffered + length;
            if (length > BUFFER_SIZE - FRAME_HEADER_MAX) {
                buffered = at;
                append(body, bodyOffset, bodyLength);
                append(trailer, 0, trailerLength);
            } else {
                copy(body, bodyOffset, at, bodyLength);
                copy(trailer, 0, at + bodyLength, trailerLength);
                buffered = at + length;
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        packets++;
    }

    /**
     * Most packets are a few dozen bytes and trailers a few: two overlapping 8-byte (or 4-byte) moves copy
     * those with four memory accesses, where a bulk copy's fixed cost per call, or a loop's bound check
     * per byte, was the file writer's largest per-packet cost.
     */
    private void copy(byte[] src, int from, int to, int length) {
        if (length >= 8 && length <= 16) {
            long head = (long) LONGS.get(src, from);
            long tail = (long) LONGS.get(src, from + length - 8);
            buffer.putLong(to, head);
            buffer.putLong(to + length - 8, tail);
        } else if (length >= 4 && length < 8) {
            int head = (int) INTS.get(src, from);
            int tail = (int) INTS.get(src, from + length - 4);
            buffer.putInt(to, head);
            buffer.putInt(to + length - 4, tail);
        } else if (length < 4) {
            for (int i = 0; i < length; i++) {
                buffer.put(to + i, src[from + i]);
            }
        } else {
            buffer.put(to, src, from, length);
        }
    }

    /** Framed already: copied into the file buffer as they are (through it in pieces when larger). */
    @Override
    public void framedPackets(byte[] data, int offset, int length, int count) {
        try {
            refuseIfClosed();
            if (buffered + length > capacity) {
                drain();
            }
            if (length > BUFFER_SIZE) {
                append(data, offset, length);
            } else {
                buffer.put(buffered, data, offset, length);
                buffered += length;
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        packets += count;
        bytes += length;
    }

    public long packets() {
        return packets;
    }

    public long bytes() {
        return bytes;
    }

    /** Pushes what is buffered to the file, so the file is a valid trace up to here when this returns. */
    public void flush() throws IOException {
        drain();
        file.sync();
    }

    /** Makes the file whole and closes it; closing again does nothing. */
    @Override
    public void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        try (file) {
            flush();
        }
    }

    /** A packet after close would sit in a buffer nobody writes: it fails instead, as a write to a closed file. */
    private void refuseIfClosed() throws ClosedChannelException {
        if (closed) {
            throw new ClosedChannelException();
        }
    }

    /** Copies bytes larger than the buffer through it, writing it whenever it is full. */
    private void append(byte[] data, int offset, int length) throws IOException {
        while (length > 0) {
            int n = Math.min(length, capacity - buffered);
            buffer.put(buffered, data, offset, n);
            buffered += n;
            offset += n;
            length -= n;
            if (buffered == capacity) {
                drain();
            }
        }
    }

    /** Hands the buffer to be written and goes on with another. */
    private void drain() throws IOException {
        if (buffered > 0) {
            buffer = file.write(buffer, buffered);
            buffered = 0;
        }
    }
}
