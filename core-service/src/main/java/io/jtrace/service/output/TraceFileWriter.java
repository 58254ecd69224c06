package io.jtrace.service.output;

import io.jtrace.service.buffer.PacketSink;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Writes packets as a Perfetto trace file: the serialization of {@code Trace { repeated TracePacket
 * packet = 1; }}, i.e. each packet as field 1 (tag 0x0A, varint length, bytes). Appending records is
 * all it takes, so a file written in periods stays a valid trace at every period's end.
 */
public final class TraceFileWriter implements PacketSink, AutoCloseable {
    private static final int TRACE_PACKET_TAG = (1 << 3) | 2;

    private final OutputStream out;
    private final byte[] header = new byte[6];
    private long packets;
    private long bytes;

    public TraceFileWriter(Path file) throws IOException {
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        this.out = new BufferedOutputStream(Files.newOutputStream(file), 64 * 1024);
    }

    @Override
    public void packet(byte[] packet, int offset, int length) {
        int n = 0;
        header[n++] = (byte) TRACE_PACKET_TAG;
        int v = length;
        while ((v & ~0x7F) != 0) {
            header[n++] = (byte) ((v & 0x7F) | 0x80);
            v >>>= 7;
        }
        header[n++] = (byte) v;
        try {
            out.write(header, 0, n);
            out.write(packet, offset, length);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        packets++;
        bytes += n + length;
    }

    public long packets() {
        return packets;
    }

    public long bytes() {
        return bytes;
    }

    /** Pushes what is buffered to the file, so the file is a valid trace up to here. */
    public void flush() throws IOException {
        out.flush();
    }

    @Override
    public void close() throws IOException {
        out.close();
    }
}
