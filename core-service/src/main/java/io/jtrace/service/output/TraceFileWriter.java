package io.jtrace.service.output;

import io.jtrace.service.buffer.FileAppender;
import io.jtrace.service.buffer.PacketSink;
import io.jtrace.service.buffer.Varints;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Writes packets as a Perfetto trace file: the serialization of {@code Trace { repeated TracePacket
 * packet = 1; }}, i.e. each packet as field 1 (tag 0x0A, varint length, bytes). Appending records is
 * all it takes, so a file written in periods stays a valid trace at every period's end.
 *
 * <p>The service thread writes through {@link #packet}, {@link #framedPackets}, {@link #flush} and
 * {@link #close}; any thread may append whole frames of its own at the same time through
 * {@link #tryReserve}, {@link #put} and {@link #commit}, without a lock and without waiting (an
 * application thread promoting its chunk), or, when the ring is full, write them into the file itself
 * ({@link #reserveDirect}). Both go into one {@link FileLog}, whose order of reservation is the order in
 * the file.
 */
public final class TraceFileWriter implements PacketSink, FileAppender, AutoCloseable {
    private static final byte TRACE_PACKET_TAG = (1 << 3) | 2;
    /** Largest frame header: the tag and a 5-byte varint length. */
    private static final int FRAME_HEADER_MAX = 6;

    private final FileLog log;
    /** The service thread's frame being assembled: one copy into the ring instead of three. */
    private byte[] frame = new byte[256];
    private boolean closed;

    public TraceFileWriter(Path file) throws IOException {
        TraceFileChannel channel = TraceFileChannel.open(withParents(file));
        try {
            this.log = new FileLog(channel);
        } catch (RuntimeException | Error e) {
            // Its ring could not be had (direct memory): the file is not left open.
            channel.close();
            throw e;
        }
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
            if (frame.length < FRAME_HEADER_MAX + length) {
                if (FRAME_HEADER_MAX + length > log.largestAppend()) {
                    byte[] header = new byte[FRAME_HEADER_MAX];
                    header[0] = TRACE_PACKET_TAG;
                    int headerLength = Varints.put(header, 1, length);
                    log.appendPastTheRing(1, ByteBuffer.wrap(header, 0, headerLength).slice(),
                            ByteBuffer.wrap(body, bodyOffset, bodyLength).slice(),
                            ByteBuffer.wrap(trailer, 0, trailerLength).slice());
                    return;
                }
                frame = new byte[Math.max(FRAME_HEADER_MAX + length, frame.length * 2)];
            }
            frame[0] = TRACE_PACKET_TAG;
            int at = Varints.put(frame, 1, length);
            System.arraycopy(body, bodyOffset, frame, at, bodyLength);
            System.arraycopy(trailer, 0, frame, at + bodyLength, trailerLength);
            append(frame, 0, at + length, 1);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Framed already: copied into the file's ring as they are (around it when larger). */
    @Override
    public void framedPackets(byte[] data, int offset, int length, int count) {
        try {
            refuseIfClosed();
            if (length == 0) {
                return;
            }
            if (length > log.largestAppend()) {
                log.appendPastTheRing(count, ByteBuffer.wrap(data, offset, length).slice());
                return;
            }
            append(data, offset, length, count);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void append(byte[] data, int offset, int length, int packets) throws IOException {
        long reservation = log.reserve(length);
        log.put(reservation, 0, data, offset, length);
        log.commit(reservation, length, packets);
    }

    /**
     * Any thread, never waiting: reserves {@code length} bytes (at least 1) for whole frames, or returns
     * a negative number when the file cannot take them now (its ring is full, or it is closed or failed).
     * A reservation must be filled ({@link #put}) and then committed ({@link #commit}) promptly: the file
     * is held back behind it until then.
     */
    @Override
    public long tryReserve(int length) {
        // Too large for the ring: no wait would make room for it (the service writes it around the ring).
        return length > log.largestAppend() ? FileLog.SHUT : log.tryReserve(length);
    }

    /** Fills {@code at} bytes into a reservation with {@code src}'s bytes at absolute {@code [offset, offset + length)}. */
    @Override
    public void put(long reservation, int at, ByteBuffer src, int offset, int length) {
        log.put(reservation, at, src, offset, length);
    }

    @Override
    public void put(long reservation, int at, byte[] src, int offset, int length) {
        log.put(reservation, at, src, offset, length);
    }

    /** The reservation's {@code length} bytes are filled and hold {@code packets} packets. */
    @Override
    public void commit(long reservation, int length, int packets) {
        log.commit(reservation, length, packets);
    }

    @Override
    public long reserveDirect(int length) {
        return log.file().reserveDirect(length);
    }

    @Override
    public void writeDirect(long reservation, byte[] src, int length) {
        log.file().writeDirect(reservation, src, length);
    }

    @Override
    public void endDirect(long reservation, int packets) {
        log.file().endDirect(reservation, packets);
    }

    @Override
    public boolean makeRoom() {
        return log.makeRoom();
    }

    /** Packets in the file so far. */
    public long packets() {
        return log.packetsWritten();
    }

    @Override
    public long bytes() {
        return log.position();
    }

    /**
     * Bytes the file took: after the close, all of {@link #bytes()} unless a write failed, then only what
     * the writes before the failure wrote (into a pipe, what its reader got).
     */
    public long bytesWritten() {
        return log.file().bytesWritten();
    }

    /** Pushes what is appended to the file, so the file is a valid trace up to here when this returns. */
    public void flush() throws IOException {
        refuseIfClosed();
        log.sync();
    }

    /** Makes the file whole and closes it; closing again does nothing. */
    @Override
    public void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        log.close();
    }

    /** A packet after close would sit in a ring nobody writes: it fails instead, as a write to a closed file. */
    private void refuseIfClosed() throws ClosedChannelException {
        if (closed) {
            throw new ClosedChannelException();
        }
    }
}
