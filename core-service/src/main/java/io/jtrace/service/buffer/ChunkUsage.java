package io.jtrace.service.buffer;

import io.jtrace.shm.abi.ChunkHeader;
import io.jtrace.shm.proto.WireFormat;
import java.nio.ByteBuffer;

/**
 * How many of a chunk's payload bytes its counted packets fill. A chunk copied while its writer still
 * held it (the scrape at a session's end) is mostly empty: stored whole, a few hundred threads' last
 * chunks would wrap a small ring and overwrite the data it was keeping.
 */
final class ChunkUsage {
    private ChunkUsage() {}

    /**
     * The end of the last of the chunk's counted frames in {@code src[offset, offset + length)}, or
     * {@code length} when the frames cannot be walked (the read-out then judges the chunk) or a size may
     * still be patched.
     */
    static int usedBytes(ByteBuffer src, int offset, int length, int packetsWord) {
        int flags = ChunkHeader.flags(packetsWord);
        if ((flags & ChunkHeader.FLAG_NEEDS_PATCHING) != 0) {
            return length;
        }
        boolean fileFramed = (flags & ChunkHeader.FLAG_FILE_FRAMED) != 0;
        int count = ChunkHeader.packetCount(packetsWord);
        int pos = 0;
        for (int i = 0; i < count; i++) {
            if (fileFramed) {
                if (pos >= length || src.get(offset + pos) != WireFormat.TRACE_PACKET_TAG) {
                    return length;
                }
                pos++;
            }
            long size = 0;
            int shift = 0;
            int b;
            do {
                if (pos >= length || shift > 28) {
                    return length;
                }
                b = src.get(offset + pos++) & 0xFF;
                size |= (long) (b & 0x7F) << shift;
                shift += 7;
            } while ((b & 0x80) != 0);
            if (size == WireFormat.DROPPED_PACKET_SIZE) {
                continue;
            }
            if (size > length - pos) {
                return length;
            }
            pos += (int) size;
        }
        return pos;
    }
}
