package io.jtrace.service.output;

import java.io.BufferedInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Reads a Perfetto trace file ({@code Trace { repeated TracePacket packet = 1; }}, as
 * {@link TraceFileWriter} writes it) one packet at a time, so a trace of any size is read in the memory
 * of its largest packet. It checks the framing only, not what a packet holds, and tells apart the ways a
 * file can fail to be a whole trace: a file that does not start like a trace
 * ({@link NotATraceException}), and one whose last packet is cut off or whose framing breaks further in
 * ({@link #damage()}: everything before it is read normally).
 *
 * <pre>{@code
 * try (TraceFileReader reader = TraceFileReader.open(file)) {
 *     while (reader.next()) {
 *         TracePacket p = TracePacket.parseFrom(ByteBuffer.wrap(reader.packet(), 0, reader.packetLength()));
 *     }
 *     if (reader.damage() != null) { ... }
 * }
 * }</pre>
 */
public final class TraceFileReader implements AutoCloseable {
    /** Field 1 (packet), wire type 2 (length-delimited). */
    static final int PACKET_TAG = (1 << 3) | 2;

    /** The file is not a Perfetto trace at all; the message says why, naming the file. */
    public static final class NotATraceException extends IOException {
        public NotATraceException(String message) {
            super(message);
        }
    }

    /** A varint of more than 10 bytes: not framing a trace writer would produce. */
    private static final class BadVarint extends IOException {
        BadVarint() {
            super("varint longer than 10 bytes");
        }
    }

    private final Path file;
    private final InputStream in;
    private final long fileSize;
    private long position;
    private long packets;
    private byte[] packet = new byte[4096];
    private int packetLength;
    private long packetOffset;
    private String damage;
    private long damageAt;

    private TraceFileReader(Path file) throws IOException {
        this.file = file;
        this.fileSize = Files.size(file);
        this.in = new BufferedInputStream(Files.newInputStream(file), 1 << 16);
    }

    public static TraceFileReader open(Path file) throws IOException {
        return new TraceFileReader(file);
    }

    /**
     * Moves to the next packet; false at the end of the file or where the framing is damaged (then
     * {@link #damage()} says where and how). Top-level fields other than packets are skipped, as
     * trace_processor does. Throws {@link NotATraceException} if the file does not begin with a packet.
     */
    public boolean next() throws IOException {
        if (damage != null) {
            return false;
        }
        while (true) {
            long start = position;
            int first = readByte();
            if (first < 0) {
                return false;
            }
            position++;
            long tag;
            try {
                tag = readVarint(first);
            } catch (EOFException e) {
                return damaged(start, "the file ends inside a field's tag");
            } catch (BadVarint e) {
                return damaged(start, "bytes that are no Trace field (a tag longer than 10 bytes)");
            }
            if (start == 0 && tag != PACKET_TAG) {
                throw new NotATraceException(file + " is not a Perfetto trace: it starts with byte 0x"
                        + String.format("%02x", first) + " (a trace starts with 0x0a, its first packet)");
            }
            int wireType = (int) (tag & 7);
            if (tag >>> 3 == 0 || wireType > 5 || wireType == 3 || wireType == 4) {
                return damaged(start, "bytes that are no Trace field (tag " + tag + ")");
            }
            if (wireType != 2) {
                try {
                    skipScalar(wireType);
                } catch (EOFException e) {
                    return damaged(start, "the file ends inside a field");
                }
                continue;
            }
            long length;
            try {
                length = readVarint(-1);
            } catch (EOFException e) {
                return damaged(start, "the file ends inside a packet's length");
            } catch (BadVarint e) {
                return damaged(start, "a packet length longer than 10 bytes");
            }
            long remaining = fileSize - position;
            if (length > remaining) {
                if (start == 0 && length > Integer.MAX_VALUE) {
                    throw new NotATraceException(file + " is not a Perfetto trace: its first packet would be "
                            + length + " bytes long");
                }
                return damaged(start, "the last packet is cut off: it needs " + length + " bytes, the file has "
                        + remaining + " more");
            }
            if (tag != PACKET_TAG) {
                in.skipNBytes(length);
                position += length;
                continue;
            }
            int size = (int) length; // <= remaining bytes of a file, checked above; a packet is < 2 GB
            if (packet.length < size) {
                packet = new byte[Math.max(size, packet.length * 2)];
            }
            in.readNBytes(packet, 0, size);
            position += size;
            packetLength = size;
            packetOffset = start;
            packets++;
            return true;
        }
    }

    /** The current packet's bytes: {@code packet()[0, packetLength())}; the array is reused by {@link #next()}. */
    public byte[] packet() {
        return packet;
    }

    public int packetLength() {
        return packetLength;
    }

    /** Where the current packet's frame starts in the file. */
    public long packetOffset() {
        return packetOffset;
    }

    /** Packets read so far. */
    public long packets() {
        return packets;
    }

    public long fileSize() {
        return fileSize;
    }

    /** Bytes of the file read so far (all of it once {@link #next()} returned false without damage). */
    public long position() {
        return position;
    }

    /**
     * Null while the framing is sound; else where it broke and how ("at byte 1234: the last packet is
     * cut off: ..."). The packets before it were read normally.
     */
    public String damage() {
        return damage;
    }

    private boolean damaged(long at, String what) {
        damage = "at byte " + at + " (after " + packets + (packets == 1 ? " packet): " : " packets): ") + what;
        damageAt = at;
        return false;
    }

    /** Where the whole packets read so far end: the damage's offset, or the position when there is none. */
    public long wholeBytes() {
        return damage != null ? damageAt : position;
    }

    /**
     * The next byte, or -1 at the size the file had when opened: a file still being written (by a
     * service finishing it as its JVM exits) is read as it was, never partly past that size.
     */
    private int readByte() throws IOException {
        return position < fileSize ? in.read() : -1;
    }

    /** A base-128 varint whose first byte is {@code first} (or the stream's next byte when -1). */
    private long readVarint(int first) throws IOException {
        long value = 0;
        int b = first;
        for (int shift = 0; shift < 64; shift += 7) {
            if (b < 0) {
                b = readByte();
                if (b < 0) {
                    throw new EOFException();
                }
                position++;
            }
            value |= (long) (b & 0x7F) << shift;
            if ((b & 0x80) == 0) {
                return value;
            }
            b = -1;
        }
        throw new BadVarint();
    }

    private void skipScalar(int wireType) throws IOException {
        switch (wireType) {
            case 0 -> readVarint(-1);
            case 1 -> skipExactly(8);
            case 5 -> skipExactly(4);
            default -> throw new IllegalArgumentException("wire type " + wireType);
        }
    }

    private void skipExactly(int n) throws IOException {
        if (fileSize - position < n) {
            throw new EOFException();
        }
        in.skipNBytes(n);
        position += n;
    }

    @Override
    public void close() throws IOException {
        in.close();
    }
}
