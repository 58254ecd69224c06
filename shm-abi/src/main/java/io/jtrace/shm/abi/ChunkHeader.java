package io.jtrace.shm.abi;

/**
 * Layout of the 8-byte chunk header, little-endian:
 *
 * <pre>
 *  offset 0: u32 chunk id          (per writer, increasing, wraps at 2^32)
 *  offset 4: u16 writer id         (1..32767)
 *  offset 6: u16 packets word      (bits 0..9 packet count, bits 10..15 flags)
 * </pre>
 *
 * The writer id and packets word are read and written together as the 32-bit word at offset 4, so
 * one release store publishes a new packet count (see {@link SharedMemoryAbi#publishPackets}).
 */
public final class ChunkHeader {
    public static final int SIZE = 8;
    public static final int CHUNK_ID_OFFSET = 0;
    public static final int WRITER_AND_PACKETS_OFFSET = 4;

    /** The first packet of this chunk is the continuation of the last packet of the previous chunk. */
    public static final int FLAG_FIRST_PACKET_CONTINUES_FROM_PREV = 1;
    /** The last packet of this chunk continues in the next chunk of the same writer. */
    public static final int FLAG_LAST_PACKET_CONTINUES_ON_NEXT = 2;
    /** A size field in this chunk is still open and will arrive as a patch. */
    public static final int FLAG_NEEDS_PATCHING = 4;
    /**
     * Every frame is [0x0A][varint size][bytes]: the {@code Trace.packet} field a trace file holds, not
     * Perfetto's bare [size][bytes]. Every whole packet ends with a trusted_packet_sequence_id slot
     * ({@link io.jtrace.shm.proto.WireFormat#SEQUENCE_ID_SLOT_BYTES}). The service stamps the slot and can
     * then copy a run of a trusted producer's packets to a file as they are, with no work per packet.
     */
    public static final int FLAG_FILE_FRAMED = 8;
    /**
     * Every packet of this chunk needs its sequence's incremental state (interned names, the delta clock,
     * the packet defaults), whatever its {@code sequence_flags} say, unless it clears that state itself,
     * is one trace_processor reads before it looks at that flag (a clock snapshot), or describes a track
     * with nothing that uses the state. A jtrace extension, as {@link #FLAG_FILE_FRAMED} is: the writer
     * of a track_event sequence sets it on every chunk when its service says it reads it, so its events
     * can leave out {@code sequence_flags = SEQ_NEEDS_INCREMENTAL_STATE} (2 bytes of each packet, 4 of a
     * slice's 30). The service, which never passes such a packet on after a loss until the sequence
     * clears its state again, reads the flag from here instead. trace_processor never sees it: the file
     * holds no packet that would need it.
     */
    public static final int FLAG_NEEDS_INCREMENTAL_STATE = 16;

    public static final int MAX_PACKETS = 1023;
    public static final int MAX_WRITER_ID = 32767;

    private static final int COUNT_MASK = 0x3FF;
    private static final int FLAGS_SHIFT = 10;

    private ChunkHeader() {}

    public static int packetsWord(int count, int flags) {
        return (count & COUNT_MASK) | ((flags & 0x3F) << FLAGS_SHIFT);
    }

    public static int packetCount(int packetsWord) {
        return packetsWord & COUNT_MASK;
    }

    public static int flags(int packetsWord) {
        return (packetsWord >>> FLAGS_SHIFT) & 0x3F;
    }

    public static int writerAndPackets(int writerId, int packetsWord) {
        return (writerId & 0xFFFF) | ((packetsWord & 0xFFFF) << 16);
    }

    public static int writerId(int writerAndPackets) {
        return writerAndPackets & 0xFFFF;
    }

    public static int packetsWordOf(int writerAndPackets) {
        return writerAndPackets >>> 16;
    }
}
