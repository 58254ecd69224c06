package io.jtrace.service.buffer;

import io.jtrace.protos.TracePacket;
import io.jtrace.shm.abi.ChunkHeader;
import io.jtrace.shm.proto.WireFormat;
import java.io.ByteArrayOutputStream;
import java.util.Arrays;

/**
 * Builds the payload of a chunk (the bytes after its 8-byte header) by hand, the way a writer lays it
 * out: frames of [4-byte redundant varint size, little-endian][packet bytes], or, in a
 * {@link #fileFramed file-framed} chunk, [0x0A][size][packet bytes] with each whole packet ending in an
 * empty sequence id slot.
 */
final class ChunkPayload {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private int count;
    private int flags;
    private boolean fileFramed;

    static ChunkPayload chunk() {
        return new ChunkPayload();
    }

    /** A chunk framed as jtrace's writers frame theirs ({@link ChunkHeader#FLAG_FILE_FRAMED}). */
    static ChunkPayload fileFramedChunk() {
        ChunkPayload c = new ChunkPayload();
        c.fileFramed = true;
        return c.flags(ChunkHeader.FLAG_FILE_FRAMED);
    }

    /** {@code packet} followed by the empty sequence id slot a writer ends each packet of a file-framed chunk with. */
    static byte[] withSlot(byte[] packet) {
        byte[] out = Arrays.copyOf(packet, packet.length + WireFormat.SEQUENCE_ID_SLOT_BYTES);
        out[packet.length] = (byte) WireFormat.TRUSTED_SEQUENCE_ID_TAG;
        out[packet.length + 1] = (byte) 0x80;
        return out;
    }

    /** A frame with a 1-byte size, as a writer's reserved small packets have in a file-framed chunk. */
    ChunkPayload shortFrame(byte[] bytes) {
        if (!fileFramed || bytes.length > 0x7F) {
            throw new IllegalArgumentException("a 1-byte size frames fewer than 128 bytes of a file-framed chunk");
        }
        out.write(WireFormat.TRACE_PACKET_TAG);
        out.write(bytes.length);
        out.writeBytes(bytes);
        count++;
        return this;
    }

    /** One whole packet (or fragment) framed with its redundant-varint size (and tag, if file-framed). */
    ChunkPayload frame(byte[] bytes) {
        if (fileFramed) {
            out.write(WireFormat.TRACE_PACKET_TAG);
        }
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
        if (fileFramed) {
            out.write(WireFormat.TRACE_PACKET_TAG);
        }
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

    /** One whole packet, with its slot if the chunk is file-framed. */
    ChunkPayload packet(TracePacket packet) {
        return frame(fileFramed ? withSlot(packet.toByteArray()) : packet.toByteArray());
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
