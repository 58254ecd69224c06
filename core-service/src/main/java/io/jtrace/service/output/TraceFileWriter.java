package io.jtrace.service.output;

import io.jtrace.service.buffer.PacketSink;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

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

    /*
     * The service thread is the only writer, so frames are assembled in a plain array and handed to the
     * channel in large writes: no lock per packet (a BufferedOutputStream takes one per write call).
     */
    private final FileChannel channel;
    private final byte[] buffer = new byte[BUFFER_SIZE];
    private final ByteBuffer view = ByteBuffer.wrap(buffer);
    private int buffered;
    private long packets;
    private long bytes;

    public TraceFileWriter(Path file) throws IOException {
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        this.channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING);
    }

    @Override
    public void packet(byte[] packet, int offset, int length) {
        try {
            if (buffered + FRAME_HEADER_MAX + length > BUFFER_SIZE) {
                drain();
            }
            int at = buffered;
            buffer[at++] = (byte) TRACE_PACKET_TAG;
            int v = length;
            while ((v & ~0x7F) != 0) {
                buffer[at++] = (byte) ((v & 0x7F) | 0x80);
                v >>>= 7;
            }
            buffer[at++] = (byte) v;
            bytes += at - buffered + length;
            if (length > BUFFER_SIZE - FRAME_HEADER_MAX) {
                buffered = at;
                drain();
                writeFully(ByteBuffer.wrap(packet, offset, length));
            } else {
                System.arraycopy(packet, offset, buffer, at, length);
                buffered = at + length;
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        packets++;
    }

    public long packets() {
        return packets;
    }

    public long bytes() {
        return bytes;
    }

    /** Pushes what is buffered to the file, so the file is a valid trace up to here. */
    public void flush() throws IOException {
        drain();
    }

    @Override
    public void close() throws IOException {
        try (channel) {
            drain();
        }
    }

    private void drain() throws IOException {
        if (buffered > 0) {
            view.clear().limit(buffered);
            writeFully(view);
            buffered = 0;
        }
    }

    private void writeFully(ByteBuffer source) throws IOException {
        while (source.hasRemaining()) {
            channel.write(source);
        }
    }
}
