package io.jtrace.service.buffer;

/** Where one stored chunk's payload lies in the ring, with its header fields. */
final class ChunkRecord {
    final TraceBuffer.SequenceState sequence;
    final int chunkId;
    /** Chunk id unwrapped to 64 bits within its sequence, so ordering survives the 2^32 wrap. */
    final long ordinal;
    /** Start on the buffer's virtual stream: overwritten once the writer passes vstart + capacity. */
    final long vstart;
    /** Start in the ring array. */
    final int offset;
    final int size;
    int packetCount;
    int flags;
    /** False for a chunk scraped while its writer still held it: only its counted packets are whole. */
    boolean complete;
    /** Read or replaced: its ring space is free, the record waits only to leave the age queue. */
    boolean dead;

    ChunkRecord(TraceBuffer.SequenceState sequence, int chunkId, long ordinal, long vstart, int offset, int size) {
        this.sequence = sequence;
        this.chunkId = chunkId;
        this.ordinal = ordinal;
        this.vstart = vstart;
        this.offset = offset;
        this.size = size;
    }
}
