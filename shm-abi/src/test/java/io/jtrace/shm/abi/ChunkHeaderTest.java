package io.jtrace.shm.abi;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ChunkHeaderTest {
    @TempDir
    Path dir;

    @Test
    void packetsWordHoldsCountInTenBitsAndFlagsInSixBitsAbove() {
        int word = ChunkHeader.packetsWord(5, ChunkHeader.FLAG_NEEDS_PATCHING);
        assertEquals(5 | 4 << 10, word);
        assertEquals(5, ChunkHeader.packetCount(word));
        assertEquals(ChunkHeader.FLAG_NEEDS_PATCHING, ChunkHeader.flags(word));
    }

    @Test
    void packetCountAndFlagsRoundTripOverTheirWholeRanges() {
        for (int count = 0; count <= ChunkHeader.MAX_PACKETS; count++) {
            for (int flags = 0; flags < 64; flags += 7) {
                int word = ChunkHeader.packetsWord(count, flags);
                assertEquals(count, ChunkHeader.packetCount(word));
                assertEquals(flags, ChunkHeader.flags(word));
                assertEquals(0, word >>> 16, "fits in 16 bits");
            }
        }
    }

    @Test
    void largestPacketCountIs1023() {
        assertEquals(1023, ChunkHeader.MAX_PACKETS);
        int word = ChunkHeader.packetsWord(1023, 0x3F);
        assertEquals(1023, ChunkHeader.packetCount(word));
        assertEquals(0x3F, ChunkHeader.flags(word));
        assertEquals(0xFFFF, word);
    }

    @Test
    void flagsHavePerfettosValues() {
        assertEquals(1, ChunkHeader.FLAG_FIRST_PACKET_CONTINUES_FROM_PREV);
        assertEquals(2, ChunkHeader.FLAG_LAST_PACKET_CONTINUES_ON_NEXT);
        assertEquals(4, ChunkHeader.FLAG_NEEDS_PATCHING);
    }

    @Test
    void writerIdIsTheLow16BitsAndPacketsWordTheHigh16() {
        int packets = ChunkHeader.packetsWord(1023, 0x3F);
        int word = ChunkHeader.writerAndPackets(ChunkHeader.MAX_WRITER_ID, packets);
        assertEquals(ChunkHeader.MAX_WRITER_ID | packets << 16, word);
        assertEquals(ChunkHeader.MAX_WRITER_ID, ChunkHeader.writerId(word));
        assertEquals(packets, ChunkHeader.packetsWordOf(word));
    }

    @Test
    void chunkHeaderBytesAreLittleEndianIdThenWriterThenPacketsWord() throws IOException {
        SharedMemoryBuffer smb = SharedMemoryBuffer.create(dir, 8192, 4096);
        SharedMemoryAbi abi = new SharedMemoryAbi(smb);
        int offset = abi.chunkOffset(1, PageLayout.DIV4, 2);
        int packets = ChunkHeader.packetsWord(1000, ChunkHeader.FLAG_LAST_PACKET_CONTINUES_ON_NEXT);
        abi.writeChunkHeader(offset, 0xA1B2C3D4, 0x1234, packets);

        ByteBuffer b = smb.buffer();
        byte[] header = new byte[ChunkHeader.SIZE];
        b.get(offset, header);
        byte[] expected = {
            (byte) 0xD4, (byte) 0xC3, (byte) 0xB2, (byte) 0xA1,
            0x34, 0x12,
            (byte) (packets & 0xFF), (byte) (packets >>> 8)
        };
        assertEquals(java.util.Arrays.toString(expected), java.util.Arrays.toString(header));
        assertEquals(0xA1B2C3D4, abi.readChunkId(offset));
        int wp = abi.readWriterAndPackets(offset);
        assertEquals(0x1234, ChunkHeader.writerId(wp));
        assertEquals(1000, ChunkHeader.packetCount(ChunkHeader.packetsWordOf(wp)));
        assertEquals(ChunkHeader.FLAG_LAST_PACKET_CONTINUES_ON_NEXT, ChunkHeader.flags(ChunkHeader.packetsWordOf(wp)));
    }

    @Test
    void publishPacketsUpdatesTheCountWithoutTouchingTheChunkId() throws IOException {
        SharedMemoryAbi abi = new SharedMemoryAbi(SharedMemoryBuffer.create(dir, 4096, 4096));
        int offset = abi.chunkOffset(0, PageLayout.DIV1, 0);
        abi.writeChunkHeader(offset, 77, 9, ChunkHeader.packetsWord(0, 0));
        abi.publishPackets(offset, ChunkHeader.writerAndPackets(9, ChunkHeader.packetsWord(3, 0)));
        assertEquals(77, abi.readChunkId(offset));
        assertEquals(3, ChunkHeader.packetCount(ChunkHeader.packetsWordOf(abi.readWriterAndPackets(offset))));
        assertEquals(9, ChunkHeader.writerId(abi.readWriterAndPackets(offset)));
    }
}
