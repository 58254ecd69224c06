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
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads chunks of an SMB the way the service does: {@link #copy} takes a chunk's header and payload out
 * of shared memory (the service never parses the SMB in place); {@link Copy#frames()} splits a copy into
 * its counted frames. {@link #read} parses a chunk still being written, in place, up to its last
 * published frame. A frame is [size][bytes], or [0x0A][size][bytes] in a
 * {@link ChunkHeader#FLAG_FILE_FRAMED file-framed} chunk, where the size may also be a 1-byte varint and
 * every whole packet ends with a sequence id slot.
 */
public final class ChunkFrames {
    private ChunkFrames() {}

    /** One frame of a chunk: where its bytes start in the payload, and how many. */
    public record Frame(int contentOffset, int size) {
        public boolean isDropMarker() {
            return size == WireFormat.DROPPED_PACKET_SIZE;
        }
    }

    /**
     * A chunk copied out of the SMB at commit time: its header fields and its payload (the chunk minus
     * its 8-byte header), which is what patch offsets count from.
     */
    public record Copy(int page, int index, PageLayout layout, int targetBuffer, int chunkId, int writerId,
                       int packetCount, int flags, byte[] payload) {
        public boolean hasFlag(int flag) {
            return (flags & flag) != 0;
        }

        /**
         * The counted frames. Each must be a frame header followed by that many bytes inside the payload
         * (a drop marker has no bytes); throws {@link IllegalStateException} if not.
         */
        public List<Frame> frames() {
            ByteBuffer buf = ByteBuffer.wrap(payload).order(ByteOrder.LITTLE_ENDIAN);
            List<Frame> frames = new ArrayList<>(packetCount);
            int pos = 0;
            for (int i = 0; i < packetCount; i++) {
                long header = frameHeader(buf, pos, payload.length, hasFlag(ChunkHeader.FLAG_FILE_FRAMED));
                if (header < 0) {
                    throw new IllegalStateException("chunk " + Integer.toUnsignedString(chunkId) + ": frame " + i
                            + (header == OUTSIDE ? " header outside the chunk" : " header is malformed"));
                }
                int size = (int) header;
                pos += (int) (header >>> 32);
                if (size == WireFormat.DROPPED_PACKET_SIZE) {
                    frames.add(new Frame(pos, size));
                    continue;
                }
                if (size > payload.length - pos) {
                    throw new IllegalStateException("chunk " + Integer.toUnsignedString(chunkId) + ": frame " + i
                            + " of " + size + " bytes runs past the chunk");
                }
                frames.add(new Frame(pos, size));
                pos += size;
            }
            return frames;
        }

        /** The bytes of {@code frame} (not a drop marker). */
        public byte[] frameBytes(Frame frame) {
            byte[] out = new byte[frame.size()];
            System.arraycopy(payload, frame.contentOffset(), out, 0, frame.size());
            return out;
        }

        public Copy withPayload(byte[] newPayload, int newFlags) {
            return new Copy(page, index, layout, targetBuffer, chunkId, writerId, packetCount, newFlags, newPayload);
        }

        @Override
        public String toString() {
            return "chunk " + Integer.toUnsignedString(chunkId) + " of writer " + writerId + " (" + layout + ", "
                    + packetCount + " frames, flags " + flags + ")";
        }
    }

    private static final long OUTSIDE = -1;
    private static final long MALFORMED = -2;

    /**
     * The frame header at {@code pos}: (header bytes << 32 | size), {@link #OUTSIDE} if it runs past
     * {@code end}, {@link #MALFORMED} if it is not one. Sizes are 4-byte redundant varints; a file-framed
     * chunk's frames start with the Trace.packet tag, and their sizes may also take 1 byte.
     */
    private static long frameHeader(ByteBuffer buf, int pos, int end, boolean fileFramed) {
        int tag = fileFramed ? 1 : 0;
        if (pos + tag + 1 > end) {
            return OUTSIDE;
        }
        if (fileFramed && buf.get(pos) != WireFormat.TRACE_PACKET_TAG) {
            return MALFORMED;
        }
        byte first = buf.get(pos + tag);
        if (fileFramed && first >= 0) {
            return (long) (tag + 1) << 32 | first;
        }
        if (pos + tag + WireFormat.RESERVED_SIZE_BYTES > end) {
            return OUTSIDE;
        }
        int size = WireFormat.decodeRedundantVarint(buf.getInt(pos + tag));
        return size < 0 ? MALFORMED : (long) (tag + WireFormat.RESERVED_SIZE_BYTES) << 32 | size;
    }

    /**
     * A whole packet of a file-framed chunk without its sequence id slot, which must end it (holding the
     * id its writer proposes, or 0); fails if it does not.
     */
    public static byte[] withoutSequenceIdSlot(byte[] packet) {
        int slot = packet.length - WireFormat.SEQUENCE_ID_SLOT_BYTES;
        assertTrue(slot >= 0 && WireFormat.isSequenceIdSlot(packet, slot), "the packet does not end with a sequence id slot");
        return java.util.Arrays.copyOf(packet, slot);
    }

    /** The layout of {@code page}, asserting it has a chunk {@code index}. */
    private static PageLayout layoutOf(SharedMemoryAbi abi, int page, int index) {
        PageLayout layout = PageHeader.layout(abi.pageBitmap(page));
        assertTrue(layout != null && layout != PageLayout.NOT_PARTITIONED && index < layout.chunksPerPage(),
                "page " + page + " has no chunk " + index + " (layout " + layout + ")");
        return layout;
    }

    /** Copies chunk {@code index} of {@code page} out of the SMB: header (packets word loaded by acquire), then payload. */
    public static Copy copy(SharedMemoryAbi abi, int page, int index, int targetBuffer) {
        PageLayout layout = layoutOf(abi, page, index);
        int offset = abi.chunkOffset(page, layout, index);
        int writerAndPackets = abi.readWriterAndPackets(offset);
        int packetsWord = ChunkHeader.packetsWordOf(writerAndPackets);
        byte[] payload = new byte[layout.chunkSize(abi.pageSize()) - ChunkHeader.SIZE];
        abi.smb().buffer().get(offset + ChunkHeader.SIZE, payload);
        return new Copy(page, index, layout, targetBuffer, abi.readChunkId(offset), ChunkHeader.writerId(writerAndPackets),
                ChunkHeader.packetCount(packetsWord), ChunkHeader.flags(packetsWord), payload);
    }

    /**
     * What one chunk held, read in place. {@code packets} are the bytes of its first {@code packetCount}
     * frames; of a whole packet in a file-framed chunk, without its sequence id slot.
     */
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
     * Reads chunk {@code index} of {@code page} in place (it may still be being written), with the packet
     * count loaded by acquire first, so only published frames are parsed. Asserts every frame is well
     * formed and inside the chunk.
     */
    public static Chunk read(SharedMemoryAbi abi, int page, int index) {
        PageLayout layout = layoutOf(abi, page, index);
        int offset = abi.chunkOffset(page, layout, index);
        int end = offset + layout.chunkSize(abi.pageSize());
        int writerAndPackets = abi.readWriterAndPackets(offset);
        int packetsWord = ChunkHeader.packetsWordOf(writerAndPackets);
        int count = ChunkHeader.packetCount(packetsWord);
        ByteBuffer buf = abi.smb().buffer();
        List<byte[]> packets = new ArrayList<>(count);
        int pos = offset + ChunkHeader.SIZE;
        int flags = ChunkHeader.flags(packetsWord);
        boolean fileFramed = (flags & ChunkHeader.FLAG_FILE_FRAMED) != 0;
        for (int i = 0; i < count; i++) {
            long header = frameHeader(buf, pos, end, fileFramed);
            assertTrue(header != OUTSIDE, "frame " + i + " header outside the chunk");
            assertTrue(header != MALFORMED, "frame " + i + " header is malformed");
            int size = (int) header;
            pos += (int) (header >>> 32);
            assertTrue(pos + size <= end, "frame " + i + " of " + size + " bytes runs past the chunk");
            byte[] bytes = new byte[size];
            buf.get(pos, bytes);
            boolean fragment = (i == 0 && (flags & ChunkHeader.FLAG_FIRST_PACKET_CONTINUES_FROM_PREV) != 0)
                    || (i == count - 1 && (flags & ChunkHeader.FLAG_LAST_PACKET_CONTINUES_ON_NEXT) != 0);
            packets.add(fileFramed && !fragment ? withoutSequenceIdSlot(bytes) : bytes);
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
