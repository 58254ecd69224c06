package io.jtrace.service.buffer;

import io.jtrace.protos.TracePacket;
import io.jtrace.shm.abi.ChunkHeader;
import io.jtrace.shm.proto.WireFormat;
import java.io.ByteArrayOutputStream;
import java.util.Arrays;

/**
 * Builds the payload of a chunk (the bytes after its 8-byte header) by hand, the way a writer lays it
 * out: frames of [4-byte redundant varint size, little-endian][packet bytes].
 */
final class ChunkPayload {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private int count;
    private int flags;

    static ChunkPayload chunk() {
        return new ChunkPayload();
    }

    /** One whole packet (or fragment) framed with its redundant-varint size. */
    ChunkPayload frame(byte[] bytes) {
        int size = WireFormat.redundantVarint(bytes.length);
        out.write(size & 0xFF);
        out.write(size >>> 8 & 0xFF);
        out.write(size >>> 16 & 0xFF);
        out.write(size >>> 24 & 0xFF);
        out.writeBytes(bytes);
        count++;
        return this;
    }

    /** A drop marker: a frame of size 0x0FFFFFFF and no bytes, as a writer leaves where it lost packets. */
    ChunkPayload dropMarker() {
        int size = WireFormat.redundantVarint(WireFormat.DROPPED_PACKET_SIZE);
        out.write(size & 0xFF);
        out.write(size >>> 8 & 0xFF);
        out.write(size >>> 16 & 0xFF);
        out.write(size >>> 24 & 0xFF);
        count++;
        return this;
    }

    /** Bytes of payload so far: the offset the next frame's size field will be at. */
    int size() {
        return out.size();
    }

    ChunkPayload packet(TracePacket packet) {
        return frame(packet.toByteArray());
    }

    /** Bytes written as they are, not counted as a packet (hand-made corruption). */
    ChunkPayload raw(int... bytes) {
        for (int b : bytes) {
            out.write(b);
        }
        return this;
    }

    /** Overrides the packet count the header will claim. */
    ChunkPayload count(int claimed) {
        this.count = claimed;
        return this;
    }

    ChunkPayload flags(int chunkFlags) {
        this.flags |= chunkFlags;
        return this;
    }

    ChunkPayload firstContinuesFromPrev() {
        return flags(ChunkHeader.FLAG_FIRST_PACKET_CONTINUES_FROM_PREV);
    }

    ChunkPayload lastContinuesOnNext() {
        return flags(ChunkHeader.FLAG_LAST_PACKET_CONTINUES_ON_NEXT);
    }

    int packetsWord() {
        return ChunkHeader.packetsWord(count, flags);
    }

    byte[] bytes() {
        return out.toByteArray();
    }

    /** The payload zero-padded to {@code size} bytes, as a chunk copied whole out of an SMB is. */
    byte[] bytesPaddedTo(int size) {
        byte[] b = out.toByteArray();
        if (b.length > size) {
            throw new IllegalArgumentException("payload of " + b.length + " bytes does not fit in " + size);
        }
        return Arrays.copyOf(b, size);
    }
}
