package io.jtrace.shm.testing;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.google.protobuf.InvalidProtocolBufferException;
import io.jtrace.protos.TracePacket;
import io.jtrace.shm.abi.ChunkHeader;
import io.jtrace.shm.abi.PageHeader;
import io.jtrace.shm.abi.PageLayout;
import io.jtrace.shm.abi.SharedMemoryAbi;
import io.jtrace.shm.proto.WireFormat;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/** Reads a chunk of an SMB the way the service does: header, then the counted [size][bytes] frames. */
public final class ChunkFrames {
    private ChunkFrames() {}

    /** What one chunk held. {@code packets} are the bytes of its first {@code packetCount} frames. */
    public record Chunk(int page, int index, PageLayout layout, int chunkId, int writerId, int packetCount,
                        int flags, List<byte[]> packets) {
        public List<TracePacket> parsed() {
            List<TracePacket> out = new ArrayList<>(packets.size());
            for (byte[] bytes : packets) {
                out.add(parse(bytes));
            }
            return out;
        }
    }

    /**
     * Reads chunk {@code index} of {@code page} (laid out as its page header says), with the packet count
     * loaded by acquire first, so only published packets are parsed. Asserts every frame is well formed
     * and inside the chunk.
     */
    public static Chunk read(SharedMemoryAbi abi, int page, int index) {
        PageLayout layout = PageHeader.layout(abi.pageBitmap(page));
        assertTrue(layout != null && layout != PageLayout.NOT_PARTITIONED && index < layout.chunksPerPage(),
                "page " + page + " has no chunk " + index + " (layout " + layout + ")");
        int offset = abi.chunkOffset(page, layout, index);
        int end = offset + layout.chunkSize(abi.pageSize());
        int writerAndPackets = abi.readWriterAndPackets(offset);
        int packetsWord = ChunkHeader.packetsWordOf(writerAndPackets);
        int count = ChunkHeader.packetCount(packetsWord);
        ByteBuffer buf = abi.smb().buffer();
        List<byte[]> packets = new ArrayList<>(count);
        int pos = offset + ChunkHeader.SIZE;
        for (int i = 0; i < count; i++) {
            assertTrue(pos + WireFormat.RESERVED_SIZE_BYTES <= end, "frame " + i + " header outside the chunk");
            int size = WireFormat.decodeRedundantVarint(buf.getInt(pos));
            assertTrue(size >= 0, "frame " + i + " size is not a redundant varint");
            pos += WireFormat.RESERVED_SIZE_BYTES;
            assertTrue(pos + size <= end, "frame " + i + " of " + size + " bytes runs past the chunk");
            byte[] bytes = new byte[size];
            buf.get(pos, bytes);
            packets.add(bytes);
            pos += size;
        }
        return new Chunk(page, index, layout, abi.readChunkId(offset), ChunkHeader.writerId(writerAndPackets),
                count, ChunkHeader.flags(packetsWord), packets);
    }

    public static TracePacket parse(byte[] bytes) {
        try {
            return TracePacket.parseFrom(bytes);
        } catch (InvalidProtocolBufferException e) {
            return fail("packet does not parse: " + e.getMessage());
        }
    }
}
